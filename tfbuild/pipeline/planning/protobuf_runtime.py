"""Which protobuf runtime TensorFlow's protos are generated for: ``full`` (the trees' default)
or ``lite``, the ``MessageLite`` runtime Google's own mobile builds of TensorFlow 1.x used.

Why it matters: in a selective Android build of MobileNetV2 the full runtime is the largest
part of the shipped JNI library (docs/real-trees.md has the figures): every generated message registers its
descriptor at start-up, which keeps descriptors, reflection and the text format in the link.
``libprotobuf-lite`` has none of that. TensorFlow's sources carry the switch themselves
(``TENSORFLOW_LITE_PROTOS``: ``env.cc`` refuses text protos, ``protobuf_internal.h`` parses
``Any`` by hand), but the contrib Makefile has no build for it. tfbuild adds one without
editing the Makefile, in a makefile read after it (:data:`LITE_MAKEFILE`):

- protoc writes TensorFlow's protos with its ``lite`` option (``--cpp_out lite:DIR``), by the
  Makefile's pattern rule made more specific (``tensorflow/%``): make prefers the rule with the
  shorter stem, and a later rule with the same two targets would not replace the Makefile's;
- every object, the JNI library's and verify's runner compile with ``-DTENSORFLOW_LITE_PROTOS``;
- the programs link ``-lprotobuf-lite``, and the artifacts and link lines name
  ``libprotobuf-lite.a``, which protobuf's own build installs beside ``libprotobuf.a``;
- two directories of sources that need the full runtime are compiled as empty objects
  (:data:`LEFT_OUT`): grappler, whose sources print messages with ``DebugString()``, which lite
  messages lack, and which mobile TensorFlow never calls (``graph_execution_state.cc`` includes
  it only ``#ifndef IS_MOBILE_PLATFORM``, checked in the tree; so lite is for the mobile targets,
  Android and iOS, only); and ``util/proto``, the descriptor pools of the ``DecodeProtoV2`` and
  ``EncodeProto`` kernels, which register themselves with the full runtime's
  ``DescriptorPool::generated_pool()`` (a model with those ops needs the full runtime: its link
  fails, naming the pool);
- kernel sources that need the full runtime (:data:`FULL_RUNTIME_KERNELS`; in TF 1.15.5,
  its boosted-trees kernels name an enum's values with the generated
  ``_Name``/``_Parse`` functions, which protoc's lite output of that protobuf lacks, and the
  ``DecodeProtoV2``/``EncodeProto`` kernels read messages by reflection and text format) are
  compiled as empty objects too when no kernel the models need is in them, and the build is
  refused before it starts when one is (:func:`left_out`). tfbuild's flags stamp forgets
  every object when the lite makefile changes; the rules for empty objects also depend on it,
  so a hand-run make of the recorded command makes them anew too;
- the benchmark program (``benchmark_model.cc``) falls back to a text GraphDef through
  ``ReadTextProto``, which takes the full runtime's ``Message``. Built lite, it gets the
  overload later trees' ``env.h`` spell for lite protos (``MessageLite``, returning
  Unimplemented), from a header tfbuild includes into that one object.

A tree whose protos import a well-known type that ``libprotobuf-lite`` does not hold
(:data:`LITE_MISSING_IMPORTS`: TF 1.15.5's ``test_log.proto`` imports ``wrappers.proto``, so its
lite link would miss ``google::protobuf::DoubleValue``) is refused before the build.

What a user gives up, and the plan says so: text-format protos (``ReadTextProto``,
``DebugString()`` of TensorFlow's messages) and protobuf reflection in the app. A tree is
refused when its sources lack the switch (checked before the build, never assumed), and so are
the Bazel flavour, whose proto rules tfbuild does not change, and ``--protobuf-rename``, whose
edits are for the full runtime's files. The rules above need GNU make 3.82 or later (the
shortest stem wins); Apple's make is 3.81, so an iOS build would need GNU make (iOS builds stay
planned: tfbuild has not run with Xcode).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.tree.build_files.op_files_list import MAKEFILE_DIR

if TYPE_CHECKING:  # the option's kind reads RUNTIMES on --help, which loads no target profile nor tree.facts
    from tfbuild.toolchain.targets import LinkProfile, MakefileProfile, TargetProfile

ProtobufRuntime = Literal["full", "lite"]
FULL: Final[ProtobufRuntime] = "full"
"""``libprotobuf``: every message type, text format and reflection (the default)."""
LITE: Final[ProtobufRuntime] = "lite"
"""``libprotobuf-lite``: ``MessageLite`` only, for mobile targets (see the module)."""
RUNTIMES: tuple[ProtobufRuntime, ...] = (FULL, LITE)
FULL_ARCHIVE = "libprotobuf.a"
LITE_ARCHIVE = "libprotobuf-lite.a"
LITE_MAKEFILE = "tfbuild-protobuf-lite.mk"
"""The makefile, in the output directory, that builds TensorFlow's protos for the lite runtime."""
LITE_TEXT_PROTO_HEADER = "tfbuild_lite_text_proto.h"
"""The header, in the output directory, with the lite overload of ``ReadTextProto``."""
BENCHMARK_OBJECT = "tensorflow/tools/benchmark/benchmark_model.o"
SWITCH_SOURCE = "tensorflow/core/platform/env.cc"
"""Where a tree that supports lite protos checks the switch: its text-proto reader."""
LITE_MACRO = "TENSORFLOW_LITE_PROTOS"
LITE_DEFINE = f"-D{LITE_MACRO}"
LITE_OVERLOAD_HEADER = "tensorflow/core/platform/env.h"
LITE_OVERLOAD_MARK = "MessageLite* proto) {"
"""How a tree's ``env.h`` that already has an inline lite ``ReadTextProto`` shows it."""

LEFT_OUT_ON_MOBILE = "tensorflow/core/grappler"
PROTO_OPS_SUPPORT = "tensorflow/core/util/proto"
LEFT_OUT = (LEFT_OUT_ON_MOBILE, PROTO_OPS_SUPPORT)
"""Source directories a lite build compiles as empty objects: they need the full runtime, and
only code a mobile selective build leaves out calls them (see the module doc)."""
FULL_RUNTIME_KERNELS = (
    "tensorflow/core/kernels/boosted_trees",
    "tensorflow/core/kernels/decode_proto_op.cc",
    "tensorflow/core/kernels/encode_proto_op.cc",
)
"""Kernel sources (a directory, or one ``.cc``) that need the full runtime, found building TF
1.15.5 lite (enum ``_Name``/``_Parse``; ``DynamicMessageFactory``, ``TextFormat``,
``FieldOptions``); left out unless the models need a kernel there."""
MOBILE_GUARD_SOURCE = "tensorflow/core/common_runtime/graph_execution_state.cc"
"""The one caller of grappler in the Makefile's sources, which must leave it out on mobile."""
MOBILE_PLATFORMS = ("android", "ios")
"""The mobile platforms: the lite runtime is for them alone, and TensorFlow trims their kernel
types (``__ANDROID_TYPES_SLIM__``; the contrib Makefile's iOS section takes the same ``ANDROID_TYPES``)."""
PROTO_LIST = f"{MAKEFILE_DIR}/tf_proto_files.txt"
"""The protos the contrib Makefile generates and compiles into the library."""
LITE_MISSING_IMPORTS = ("google/protobuf/wrappers.proto",)
"""Well-known protos whose messages ``libprotobuf-lite`` does not hold (only ``libprotobuf``)."""
_IMPORT = re.compile(r'^\s*import\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;', re.MULTILINE)
_DIRECTIVE = re.compile(r"\s*#\s*(\w+)\s*(\S*)")

GIVEN_UP = ("text-format protos (ReadTextProto, DebugString() of TensorFlow's messages) and protobuf "
            "reflection are not in the binary")


def read_text_if_present(path: Path) -> str | None:
    """:func:`tfbuild.tree.facts.read_text_if_present`, imported when a tree is read."""
    from tfbuild.tree.facts import read_text_if_present as read

    return read(path)


def tree_supports_lite(root: Path) -> bool:
    """Whether the tree's own sources switch to the lite runtime (``TENSORFLOW_LITE_PROTOS``)."""
    return LITE_MACRO in (read_text_if_present(root / SWITCH_SOURCE) or "")


def needs_text_proto_overload(root: Path) -> bool:
    """Whether the benchmark needs tfbuild's lite ``ReadTextProto``: the tree's ``env.h`` has none."""
    return LITE_OVERLOAD_MARK not in (read_text_if_present(root / LITE_OVERLOAD_HEADER) or "")


def check_lite(root: Path, version: str, *, target: str, platform: str, renamed: bool) -> None:
    """Refuse ``lite`` for a target that is not mobile and with ``--protobuf-rename`` (exit 2),
    and for a tree whose sources have no lite switch or call grappler on mobile too (exit 4)."""
    if renamed:
        raise ConfigError(
            "--protobuf-runtime lite with --protobuf-rename: the rename's edits of protoc's output and of "
            "protobuf's headers are for the full runtime",
            hint="choose one: lite protos, or the renamed full runtime",
        )
    if platform not in MOBILE_PLATFORMS:
        raise ConfigError(
            f"--protobuf-runtime lite is for Android and iOS targets: on {target} TensorFlow runs grappler, "
            "whose sources need the full protobuf runtime",
            hint="build it with --protobuf-runtime full",
        )
    if not tree_supports_lite(root):
        raise SourceTreeError(
            f"{root / SWITCH_SOURCE}: TensorFlow {version} has no {LITE_MACRO} switch, so its sources "
            "need the full protobuf runtime",
            hint="build it with --protobuf-runtime full",
        )
    for proto, imported in _imports_missing_from_lite(root):
        raise SourceTreeError(
            f"{root / proto}: imports {imported}, whose messages libprotobuf-lite does not hold, so the lite "
            "build's link would fail on them",
            hint="build it with --protobuf-runtime full",
        )
    if not grappler_left_out_on_mobile(root):
        raise SourceTreeError(
            f"{root / MOBILE_GUARD_SOURCE}: includes grappler outside '#ifndef IS_MOBILE_PLATFORM', so a mobile "
            "build calls it, and grappler needs the full protobuf runtime",
            hint="build it with --protobuf-runtime full",
        )


def _imports_missing_from_lite(root: Path) -> list[tuple[str, str]]:
    """Each (proto, import) of the Makefile's protos that imports one of :data:`LITE_MISSING_IMPORTS`."""
    listed = (read_text_if_present(root / PROTO_LIST) or "").split()
    return [(proto, imported) for proto in listed
            for imported in _IMPORT.findall(read_text_if_present(root / proto) or "")
            if imported in LITE_MISSING_IMPORTS]


def grappler_left_out_on_mobile(root: Path) -> bool:
    """Whether every grappler include of :data:`MOBILE_GUARD_SOURCE` is in an
    ``#ifndef IS_MOBILE_PLATFORM`` block (a tree without the file calls no grappler)."""
    lines = (read_text_if_present(root / MOBILE_GUARD_SOURCE) or "").splitlines()
    depth = 0  # inside an #ifndef IS_MOBILE_PLATFORM block: 1 + the #if blocks nested in it
    for line in lines:
        directive = _DIRECTIVE.match(line)
        if directive is None:
            continue
        word, argument = directive.groups()
        if depth:
            if word.startswith("if"):
                depth += 1
            elif word == "endif":
                depth -= 1
            elif depth == 1 and word in ("else", "elif"):
                depth = 0  # what follows is the mobile branch
        elif word == "ifndef" and argument == "IS_MOBILE_PLATFORM":
            depth = 1
        elif word == "include" and argument.startswith(f'"{LEFT_OUT_ON_MOBILE}/'):
            return False
    return True


def left_out(kernel_files: Iterable[str]) -> tuple[str, ...]:
    """The sources (directories, or single ``.cc`` files) a lite build compiles as empty
    objects, for models whose kernels are registered in ``kernel_files`` (tree-relative paths).
    A model that needs a kernel of :data:`FULL_RUNTIME_KERNELS` is refused (exit 2): its kernel
    would be compiled out."""
    files = tuple(kernel_files)
    for source in FULL_RUNTIME_KERNELS:
        needed = sorted(name for name in files if name == source or name.startswith(f"{source}/"))
        if needed:
            raise ConfigError(
                f"--protobuf-runtime lite: the models need kernels of {needed[0]}, whose sources need the full "
                "protobuf runtime",
                hint="build it with --protobuf-runtime full",
            )
    return (*LEFT_OUT, *FULL_RUNTIME_KERNELS)


def refuse_for_bazel() -> None:
    """The Bazel flavour's proto rules are the tree's own; tfbuild does not change them."""
    raise ConfigError(
        "--protobuf-runtime lite: the Bazel flavour builds TensorFlow's protos with the tree's own rules, "
        "which tfbuild does not change",
        hint="build with --flavour makefile, or with --protobuf-runtime full",
    )


GENERATED_GRAPH_HEADER = f"{MAKEFILE_DIR}/gen/proto/tensorflow/core/framework/graph.pb.h"
"""The tree's generated GraphDef header (the Makefile's ``$(PROTOGENDIR)``), whose base class says
which runtime the tree's protos were last generated for."""
_GRAPH_BASE = re.compile(r"class GraphDef\s*(?:final\s*)?:\s*public ::google::protobuf\d*::(MessageLite|Message)\b")


def generated_runtime(root: Path) -> ProtobufRuntime | None:
    """The runtime the tree's generated protos are for now (None: none generated, or not known).
    A later build in the same tree may have generated them anew for the other runtime; code
    compiled against them would not match an earlier build's archives."""
    match = _GRAPH_BASE.search(read_text_if_present(root / GENERATED_GRAPH_HEADER) or "")
    if match is None:
        return None
    return LITE if match.group(1) == "MessageLite" else FULL


def require_generated(root: Path, runtime: ProtobufRuntime) -> None:
    """Refuse to compile against the tree's protos when they are for another runtime than the
    build's (exit 4): the runner's messages would not be the archives' messages."""
    found = generated_runtime(root)
    if found is not None and found != runtime:
        raise SourceTreeError(
            f"{root / GENERATED_GRAPH_HEADER}: the tree's protos are generated for the {found} protobuf runtime "
            f"now (by a later build), and this build's for the {runtime} one",
            hint=f"build this output directory again (--protobuf-runtime {runtime}): apps and verify compile "
            "against the tree's protos",
        )


def link_for(link: LinkProfile, runtime: ProtobufRuntime) -> LinkProfile:
    """What an app links for a build of ``runtime``: ``libprotobuf-lite.a`` for a lite one."""
    if runtime == FULL:
        return link
    return dataclasses.replace(link, libs=tuple(_lite_name(name) for name in link.libs))


def profile_for(profile: TargetProfile, runtime: ProtobufRuntime) -> TargetProfile:
    """The target's profile with the protobuf archive of ``runtime`` in its artifacts and link."""
    if runtime == FULL:
        return profile
    makefile: MakefileProfile | None = profile.makefile
    if makefile is not None:
        artifacts = tuple(
            dataclasses.replace(spec, name=LITE_ARCHIVE, path=spec.path.removesuffix(FULL_ARCHIVE) + LITE_ARCHIVE)
            if spec.name == FULL_ARCHIVE else spec
            for spec in makefile.artifacts
        )
        makefile = dataclasses.replace(makefile, artifacts=artifacts)
    return dataclasses.replace(profile, link=link_for(profile.link, runtime), makefile=makefile)


def _lite_name(name: str) -> str:
    return LITE_ARCHIVE if name == FULL_ARCHIVE else name
