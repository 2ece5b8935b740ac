"""Build plans as data: golden dry-run texts for every target x flavour (Android and iOS cannot
build here; their plans are what can be checked), and the properties every plan must have.

Golden files are tests/golden/plans/<target>-<flavour>[-<variant>].txt; machine-specific parts
(temporary paths, the tree's cache id, image digests, the TensorFlow wheel's location) are
replaced before comparing. ``TFBUILD_UPDATE_GOLDEN=1`` rewrites them; review the diff.
"""

from __future__ import annotations

import ast
import os
from dataclasses import replace
from pathlib import Path, PurePosixPath

import pytest
from android_dirs import make_ndk, make_sdk
from treegen import make_tf1_tree, make_tf2_makefile_tree, make_tf2_tree

from tfbuild.errors import ConfigError, SourceTreeError
from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
from tfbuild.pipeline.flavours import choose_flavour, plan_build
from tfbuild.pipeline.flavours.makefile import DOWNLOAD_STEP, PROTOBUF_RENAME_STEP, RenameProtobuf
from tfbuild.pipeline.flavours.workspace import BEGIN_MARKER
from tfbuild.pipeline.plan_text import normalize, plan_text
from tfbuild.pipeline.planning.plan import Step
from tfbuild.resources import examples_dir
from tfbuild.toolchain.targets import get_target, load_targets
from tfbuild.tree.facts import read_tree_facts
from tfbuild.tree.git_version import DESCRIBE_GIT_DIR

GOLDEN_DIR = Path(__file__).parent / "golden" / "plans"
REPO = Path(__file__).resolve().parent.parent
HEADER = "// ops_to_register.h (test fixture)\n#define SHOULD_REGISTER_OP(op) true\n"
NDK_R17 = "17.2.4988734"
TREE_CASES = [
    (name, flavour)
    for name, profile in load_targets().items()
    for flavour in profile.flavours
    if flavour != "ops-library"
]
OPS_CASES = [(name, "ops-library") for name, profile in load_targets().items() if profile.ops_library]
VARIANTS = [("android-arm64", "bazel", "tf2"), ("linux-x86_64", "bazel", "tf2")]
NDK_R26 = "26.1.10909125"
CLANG_NDK_CASES = [("android-arm64", "makefile", "ndk26"), ("android-armv7", "makefile", "ndk26")]
"""The Makefile on a clang-only NDK: tfbuild's clang adapter (the golden r17 plans keep GCC)."""
TF2_MAKEFILE_CASES = [("linux-x86_64", "makefile", ()),
                      ("android-arm64", "makefile", ("--ndk", "ndk26", "--java-api", "tfbuild"))]
"""TF 2.0.0 through its contrib Makefile (the tf2-makefile tree): every fix-up for [1.4, 2.1) listed,
the protobuf commit it pins, and on Android tfbuild's own Java class (the tree's calls the eager C API)."""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Trees, SDK and NDK at fixed places under one temporary root."""
    root = tmp_path_factory.mktemp("plans")
    make_tf1_tree(root / "tf1")
    make_tf2_tree(root / "tf2", version=(2, 6, 0))
    make_tf2_makefile_tree(root / "tf2-makefile")
    make_ndk(root / "ndk", revision=NDK_R17)
    make_ndk(root / "ndk26", revision=NDK_R26, api_levels=(21, 34))
    make_sdk(root / "sdk")
    return root


def tensorflow_step(plan):
    """The Makefile plan's step that builds TensorFlow (ccache's statistics come after it)."""
    return next(step for step in reversed(plan.steps) if step.name.startswith("build TensorFlow"))



def options_for(world: Path, target: str, flavour: str, tree: str | None = "tf1", **cli):
    given = {
        "target": target,
        "flavour": flavour,
        "output_dir": str(world / "out" / target),
        "jobs": 2,
        **cli,
    }
    if tree is not None:
        given["source"] = str(world / tree)
    if get_target(target).platform == "android":
        given.setdefault("ndk", str(world / "ndk"))
        given.setdefault("sdk", str(world / "sdk"))
    return resolve_build_options(Flags.named(**given), environ={}, cwd=world)


def plan_for(world: Path, target: str, flavour: str, tree: str = "tf1", **cli):
    options = options_for(world, target, flavour, tree, **cli)
    return plan_build(options, header_text=HEADER, tree=read_tree_facts(world / tree))


def check_golden(name: str, text: str, replacements: dict[str, str]) -> None:
    text = normalize(text, replacements)
    path = GOLDEN_DIR / f"{name}.txt"
    if os.environ.get("TFBUILD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.is_file(), f"no golden file {path}; run with TFBUILD_UPDATE_GOLDEN=1 and review it"
    assert text == path.read_text(), f"{path} differs; if intended, regenerate with TFBUILD_UPDATE_GOLDEN=1"


def replacements(world: Path, *trees: str) -> dict[str, str]:
    found = {str(world): "<tmp>", str(REPO): "<repo>"}
    for tree in trees:
        found[read_tree_facts(world / tree).tree_id] = f"<{tree}-id>"
    return found


@pytest.mark.parametrize("target, flavour", TREE_CASES, ids=[f"{t}-{f}" for t, f in TREE_CASES])
def test_golden_tree_plan(world, target, flavour):
    plan = plan_for(world, target, flavour)
    check_golden(f"{target}-{flavour}", plan_text(plan), replacements(world, "tf1"))


@pytest.mark.parametrize("target, flavour, tree", VARIANTS, ids=[f"{t}-{f}-{v}" for t, f, v in VARIANTS])
def test_golden_tf2_plan(world, target, flavour, tree):
    plan = plan_for(world, target, flavour, tree)
    check_golden(f"{target}-{flavour}-{tree}", plan_text(plan), replacements(world, tree))


@pytest.mark.parametrize("target, flavour, ndk", CLANG_NDK_CASES, ids=[f"{t}-{f}-{n}" for t, f, n in CLANG_NDK_CASES])
def test_golden_clang_ndk_plan(world, target, flavour, ndk):
    plan = plan_for(world, target, flavour, ndk=str(world / ndk))
    check_golden(f"{target}-{flavour}-{ndk}", plan_text(plan), replacements(world, "tf1"))
    # the alignment the build checks its ELFs against is the plan's, as its planner chose it
    assert plan.android_ndk is not None and plan.android_ndk.adapter == "clang"
    assert plan.page_size == get_target(target).makefile.ndk_clang.page_size
    assert plan_for(world, "linux-x86_64", "makefile").page_size is None


@pytest.mark.parametrize("target, flavour, args", TF2_MAKEFILE_CASES, ids=[t for t, _, _ in TF2_MAKEFILE_CASES])
def test_golden_tf2_makefile_plan(world, target, flavour, args):
    cli = {"ndk": str(world / args[1]), "java_api": args[3], "local": True} if args else {}
    plan = plan_for(world, target, flavour, "tf2-makefile", size_profile="small", **cli)
    check_golden(f"{target}-{flavour}-tf2-makefile", plan_text(plan), replacements(world, "tf2-makefile"))


@pytest.mark.tensorflow
@pytest.mark.parametrize("target, flavour", OPS_CASES, ids=[f"{t}-{f}" for t, f in OPS_CASES])
def test_golden_ops_library_plan(world, target, flavour):
    from tfbuild.pipeline.op_library.compile_plan import installed_tensorflow

    tensorflow = installed_tensorflow()
    sources = tuple(str(path) for path in sorted((examples_dir() / "custom_ops").glob("*.cc")))
    options = options_for(world, target, flavour, tree=None, op_sources=sources)
    plan = plan_build(options, header_text=HEADER, tensorflow=tensorflow)
    found = {**replacements(world), str(tensorflow.package_dir): "<tensorflow>"}
    check_golden(f"{target}-{flavour}", plan_text(plan), found)


def test_golden_files_match_the_cases():
    expected = {f"{t}-{f}" for t, f in TREE_CASES + OPS_CASES} | {
        f"{t}-{f}-{v}" for t, f, v in VARIANTS + CLANG_NDK_CASES
    } | {f"{t}-{f}-tf2-makefile" for t, f, _ in TF2_MAKEFILE_CASES}
    assert {path.stem for path in GOLDEN_DIR.glob("*.txt")} == expected


# -- properties of the plans -----------------------------------------------------------------


def test_makefile_plan_is_selective_and_mounts_the_header_read_only(world):
    plan = plan_for(world, "pi-armv7", "makefile")
    make = tensorflow_step(plan)
    assert make.argv[:3] == ("make", "-f", "tensorflow/contrib/makefile/Makefile") and "-j2" in make.argv
    optflags = next(arg for arg in make.argv if arg.startswith("OPTFLAGS="))
    assert "-DSELECTIVE_REGISTRATION" in optflags and "-I/tfbuild/header" in optflags
    assert "-mfpu=neon-vfpv4" in optflags
    header_mount = next(m for m in plan.mounts if m.target == PurePosixPath("/tfbuild/header"))
    assert header_mount.read_only and header_mount.source == world / "out" / "pi-armv7" / "header"
    # The header goes to the mounted header dir and to the tree's own include location, so a
    # copy left there by an earlier build of another app can never shadow this one.
    # Beside them only the git directory the version step describes (the user's commit).
    written = {file.path: file.content for file in plan.generated_files}
    version_dir = world / "tf1" / DESCRIBE_GIT_DIR
    assert {path: text for path, text in written.items() if path.parent != version_dir} == {
        header_mount.source / "ops_to_register.h": HEADER,
        world / "tf1/tensorflow/core/framework/ops_to_register.h": HEADER,
    }
    assert {path.name for path in written if path.parent == version_dir} == {"HEAD", "commondir"}
    assert next(m for m in plan.mounts if m.target == PurePosixPath("/src")).source == world / "tf1"
    assert [a.name for a in plan.artifacts][:2] == ["libtensorflow-core.a", "libprotobuf.a"]


def test_downloads_are_skipped_when_present_and_the_protobuf_rename_follows_them(world):
    plan = plan_for(world, "linux-x86_64", "makefile")
    download = plan.steps[0]
    assert download.name == DOWNLOAD_STEP
    assert download.skip_if_exists == PurePosixPath("/src/tensorflow/contrib/makefile/downloads")
    assert PROTOBUF_RENAME_STEP not in [step.name for step in plan.steps]
    renaming = plan_for(world, "linux-x86_64", "makefile", protobuf_rename=True)
    rename = renaming.steps[1]
    assert renaming.steps[0] == download and rename.name == PROTOBUF_RENAME_STEP
    # tfbuild renames the tree on this machine itself; the plan shows the command that does it by hand.
    assert rename.host_action == RenameProtobuf(world / "tf1")
    assert rename.argv == ("tfbuild", "protobuf", "rename", "--source", str(world / "tf1"))
    assert renaming.steps[2:] == plan.steps[1:]
    # the flow says what the rename left in the downloads from the plan, not from the step's name
    assert plan.tree_leftovers == ()
    assert [leftover.path for leftover in renaming.tree_leftovers] == [
        "tensorflow/contrib/makefile/downloads/protobuf/src/google/protobuf3"]
    text = plan_text(renaming)
    assert f"2. {PROTOBUF_RENAME_STEP}\n       in {world / 'tf1'}: tfbuild protobuf rename --source {world / 'tf1'}" in text


def test_every_step_is_an_argv_with_an_absolute_workdir(world):
    for target, flavour in TREE_CASES:
        for step in plan_for(world, target, flavour).steps:
            assert isinstance(step, Step) and step.argv and all(isinstance(a, str) for a in step.argv)
            assert PurePosixPath(step.workdir).is_absolute()


def test_bazel_plan_puts_the_header_where_tensorflow_includes_it(world):
    plan = plan_for(world, "android-arm64", "bazel")
    paths = {file.path: file.content for file in plan.generated_files}
    assert paths[world / "tf1/tensorflow/core/framework/ops_to_register.h"] == HEADER
    workspace = paths[world / "tf1/WORKSPACE"]
    ast.parse(workspace)
    assert BEGIN_MARKER in workspace and 'path = "/opt/android-ndk"' in workspace  # the container's view
    build = next(step for step in plan.steps if step.argv[0] == "bazel")
    assert "--copt=-DSELECTIVE_REGISTRATION" in build.argv and "--copt=-DSUPPORT_SELECTIVE_REGISTRATION" in build.argv
    assert "--fat_apk_cpu=arm64-v8a" in build.argv  # what --config=android_arm64 stands for
    assert "//tensorflow/contrib/android:libtensorflow_inference.so" in build.argv
    assert "--output_user_root=/cache/bazel" in build.argv
    # The tree's configure.py accepts 0.19.0..0.20.0: the tree wins over the version table.
    assert plan.image.build_args["BAZEL_VERSION"] == "0.20.0"


def test_bazel_leaves_the_aar_out_without_a_java_api(world):
    """``--java-api none``: the native library alone (the AAR's classes are the Java API)."""
    aar = "//tensorflow/contrib/android:android_tensorflow_inference_java.aar"
    both = plan_for(world, "android-arm64", "bazel")
    assert aar in next(step for step in both.steps if step.argv[0] == "bazel").argv
    native = plan_for(world, "android-arm64", "bazel", java_api="none")
    build = next(step for step in native.steps if step.argv[0] == "bazel")
    assert aar not in build.argv and "//tensorflow/contrib/android:libtensorflow_inference.so" in build.argv
    assert [artifact.kind for artifact in native.artifacts] == ["shared-lib"]


def test_bazel_uses_the_trees_config_when_its_bazelrc_defines_it(world, tmp_path):
    tree = make_tf2_tree(tmp_path / "tf2rc", version=(2, 6, 0))
    (tree / ".bazelrc").write_text("build:android --crosstool_top=//external:android/crosstool\n"
                                   "build:android_arm64 --config=android\n")
    options = options_for(world, "android-arm64", "bazel", tree=None, source=str(tree))
    plan = plan_build(options, header_text=HEADER, tree=read_tree_facts(tree))
    build = next(step for step in plan.steps if step.argv[0] == "bazel")
    assert "--config=android_arm64" in build.argv and "--fat_apk_cpu=arm64-v8a" not in build.argv
    assert "//tensorflow/tools/android/inference_interface:android_tensorflow_inference_java.aar" in build.argv
    assert plan.image.build_args["BAZEL_VERSION"] == "3.7.2"  # the tree's .bazelversion


def test_cache_volumes_are_shared_per_target_and_tree(world, tmp_path):
    other_tree = make_tf1_tree(tmp_path / "other")

    def volumes(plan):
        return {m.target: m.volume for m in plan.mounts if m.volume}

    first = volumes(plan_for(world, "android-arm64", "bazel"))
    again = volumes(plan_for(world, "android-arm64", "bazel"))
    assert first == again
    options = options_for(world, "android-arm64", "bazel", tree=None, source=str(other_tree))
    other = volumes(plan_build(options, header_text=HEADER, tree=read_tree_facts(other_tree)))
    assert other[PurePosixPath("/cache/bazel")] != first[PurePosixPath("/cache/bazel")]
    ccache = volumes(plan_for(world, "pi-armv7", "makefile"))[PurePosixPath("/cache/ccache")]
    assert ccache == "tfbuild-ccache-pi-armv7"


def test_local_plans_use_host_paths_and_no_container(world):
    plan = plan_for(world, "linux-x86_64", "makefile", local=True)
    assert plan.image is None and plan.mounts == ()
    assert plan.steps[-1].workdir == PurePosixPath(world / "tf1")
    optflags = next(arg for arg in plan.steps[-1].argv if arg.startswith("OPTFLAGS="))
    assert f"-I{world / 'out/linux-x86_64/header'}" in optflags.split()
    assert not any(arg.startswith("CC_PREFIX=") for arg in plan.steps[-1].argv)  # no ccache volume here


def test_ios_plans_run_on_the_mac_itself(world):
    plan = plan_for(world, "ios-arm64", "makefile")
    assert plan.image is None and plan.mounts == ()
    assert "TARGET=IOS" in plan.steps[-1].argv and "IOS_ARCH=ARM64" in plan.steps[-1].argv


def test_android_makefile_refuses_an_ndk_without_gcc(world, tmp_path):
    r18 = make_ndk(tmp_path / "ndk18", revision="18.1.5063045")
    with pytest.raises(ConfigError, match=r"GCC toolchains \(toolchains/\*-4.9\), which Android NDK r18 "
                                          r"\(18.1.5063045\) no longer has") as caught:
        plan_for(world, "android-arm64", "makefile", ndk=str(r18))
    assert caught.value.one_line().startswith(f"{r18} (from --ndk): ")
    assert "use NDK r17 or older" in caught.value.hint


def test_android_needs_an_ndk(world):
    options = options_for(world, "android-armv7", "makefile")
    options = replace(options, android=replace(options.android, ndk=None))
    with pytest.raises(ConfigError, match=r"needs the Android NDK \(--ndk\)"):
        plan_build(options, header_text=HEADER, tree=read_tree_facts(world / "tf1"))


def test_flavour_choice(world):
    tf1, tf2 = read_tree_facts(world / "tf1"), read_tree_facts(world / "tf2")
    auto = replace(options_for(world, "android-arm64", "makefile"), flavour=None)
    assert choose_flavour(auto, get_target("android-arm64"), tf1) == "makefile"
    assert choose_flavour(auto, get_target("android-arm64"), tf2) == "bazel"
    with pytest.raises(SourceTreeError, match="no tensorflow/contrib/makefile"):
        choose_flavour(replace(auto, flavour="makefile"), get_target("android-arm64"), tf2)
    with pytest.raises(ConfigError, match="has no bazel flavour"):
        choose_flavour(replace(auto, flavour="bazel", target="pi-armv7"), get_target("pi-armv7"), tf1)
    with pytest.raises(ConfigError, match="no TensorFlow tree and no op sources"):
        choose_flavour(replace(auto, source=None), get_target("android-arm64"), None)


def test_a_64bit_android_bazel_build_refuses_a_low_ndk_api_level(world):
    with pytest.raises(ConfigError, match="NDK API level 16 cannot build android-arm64") as caught:
        plan_for(world, "android-arm64", "bazel", ndk_api_level=16)
    assert "--ndk-api-level 21 or higher" in caught.value.hint
    plan_for(world, "android-armv7", "bazel", ndk_api_level=16)  # 32-bit: fine


def test_the_protobuf_rename_step_runs_on_this_machine_between_the_plans_commands(tmp_path):
    """The rename is a real step: the executor runs the (stand-in) download script, then
    tfbuild's rename on the tree it filled, and logs what the rename did."""
    from tfbuild.pipeline.planning.executor import execute_plan
    from tfbuild.tree.protobuf_rename import NAMESPACE, PROTOBUF_SRC

    tree = make_tf1_tree(tmp_path / "tf1")
    options = options_for(tmp_path, "linux-x86_64", "makefile", tree=None, source=str(tree), local=True,
                          protobuf_rename=True)
    plan = plan_build(options, header_text=HEADER, tree=read_tree_facts(tree))
    assert [step.name for step in plan.steps[:2]] == [DOWNLOAD_STEP, PROTOBUF_RENAME_STEP]
    executed = execute_plan(replace(plan, steps=plan.steps[:2], artifacts=(), generated_files=()))
    assert (tree / PROTOBUF_SRC / "google" / NAMESPACE / "stubs" / "common.h").is_file()
    assert not (tree / PROTOBUF_SRC / "google" / "protobuf").exists()
    log = executed.log_path.read_text()
    assert f"==> [2/2] {PROTOBUF_RENAME_STEP}: tfbuild protobuf rename --source {tree}" in log
    assert f"move {PROTOBUF_SRC}/google/protobuf -> {PROTOBUF_SRC}/google/{NAMESPACE}" in log


def test_plan_notes_are_typed_and_print_as_kind_then_text(world):
    from tfbuild.pipeline.planning.notes import Note

    plan = plan_for(world, "android-arm64", "makefile", ndk=str(world / "ndk26"))
    assert plan.notes and all(isinstance(note, Note) for note in plan.notes)
    kinds = [note.kind for note in plan.notes]
    assert kinds[0] == "android-ndk" and "jni-library" in kinds
    first = plan.notes[0]
    assert first.text.startswith("Android NDK r26 (26.1.10909125) has no GCC toolchains")
    assert f"  note: Android NDK: {first.text}\n" in plan_text(plan)


@pytest.mark.parametrize("levels, linked", [((21, 34), 23), ((21,), 21)], ids=["ndk-has-23", "ndk-has-21-only"])
def test_the_jni_library_links_against_the_bionic_of_the_apps_lowest_api_level(world, tmp_path, levels, linked):
    """TensorFlow's objects are compiled for the Makefile's API 21; the JNI library links against
    the stubs of --ndk-api-level (bionic has __cxa_thread_atexit_impl, which TF 1.15+'s
    thread_local destructors need, only from API 23), when the NDK has them."""
    ndk = make_ndk(tmp_path / "ndk", revision=NDK_R26, api_levels=levels)
    plan = plan_for(world, "android-arm64", "makefile", ndk=str(ndk), ndk_api_level=23, java_api="tfbuild")
    link = next(step for step in plan.steps if step.name.startswith("link libtensorflow_inference.so"))
    make = next(step for step in plan.steps if step.name.startswith("build TensorFlow"))
    assert f"--target=aarch64-linux-android{linked}" in link.argv
    assert not any(word.startswith("--target=") and word != f"--target=aarch64-linux-android{linked}"
                   for word in link.argv)
    assert any("--target=aarch64-linux-android21" in word for word in make.argv)  # the objects: API 21
    said = [note.text for note in plan.notes if "bionic stubs" in note.text]
    assert said == ([] if linked == 23 else
                    ["linked against API 21's bionic stubs, the objects' level: the NDK has none for API 23"])
