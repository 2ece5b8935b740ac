"""A build as data, and the one place that runs it.

:mod:`.plan` holds the :class:`~tfbuild.pipeline.planning.plan.BuildPlan` every flavour computes
(image, mounts, steps, generated files, artifacts) and the records it carries into the manifest;
:mod:`.notes` the notes a plan prints; :mod:`.protobuf_runtime`, :mod:`.opt_level` and
:mod:`.reproducible` the values a plan records about its compiler lines and outputs;
:mod:`.executor` is the only module that executes a plan. Everything above this package computes
plans; nothing below it knows what a plan is.
"""
