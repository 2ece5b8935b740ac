"""``tfbuild report``: where a build's bytes went, and how many the selection saved.

A selective build is only worth its trouble if it is smaller, and a binary that is still too big
has to say which kernels keep it so. The report answers both for every artifact a build's
``manifest.json`` lists: its size against a stock build of the same tree, target and flavour
(:mod:`.baseline`), and its remaining code and data bytes by kernel file and op, the rest grouped
as framework, protobuf and other (:mod:`.attribution`, from the symbol sizes :mod:`.symbols`
reads with the ``nm`` that understands the artifact, :mod:`.objects`). :mod:`.sizes` puts one
report together as data; :mod:`.render` writes it as Markdown, an HTML page with bar charts
(:mod:`.chart`) and JSON.
"""
