"""Helpers of the real-build tests and the cache-reuse benchmark: a check command in the linux
toolchain, TF 1.x-shaped trees prepared as a user would have them, and the planner's plans for
them (for the cache-reuse benchmark).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tfbuild.pipeline.example import example_sources_dir
from tfbuild.pipeline.planning.plan import BuildPlan, Mount
from tfbuild.toolchain.container import BuildContainer, ContainerConfig
from tfbuild.toolchain.images import toolchain_spec

SRC = PurePosixPath("/src")  # the example sources, in check containers
TOOLS_IMAGE_DIR = PurePosixPath("/check")


def run_in_toolchain(argv: list[str], host_dir: Path, *, name: str = "linux") -> str:
    """Run ``argv`` in toolchain ``name`` with ``host_dir`` at /check; its output (must exit 0)."""
    lines: list[str] = []
    mounts = (Mount(TOOLS_IMAGE_DIR, source=host_dir), Mount(SRC, source=example_sources_dir(), read_only=True))
    with BuildContainer(ContainerConfig(image=toolchain_spec(name).tag, mounts=mounts)) as box:
        code = box.run(argv, workdir=TOOLS_IMAGE_DIR, on_line=lines.append)
    output = "\n".join(lines)
    assert code == 0, f"{argv[0]} exited {code}:\n{output[-3000:]}"
    return output


# -- TensorFlow-shaped trees (tests/treegen.py) built with the Makefile and Bazel flavours ---------
APPS_DIR = Path(__file__).resolve().parent / "data" / "apps"
TREE_BAZEL_VERSION = "0.26.1"
"""The Bazel the tree asks for (.bazelversion): the last npm release that builds C++ offline."""


def prepare_tf1_tree(root: Path, android_dir: Path) -> Path:
    """A TF 1.x test tree as a user would have it before ``tfbuild build``: Bazel pinned with
    ``.bazelversion``, the WORKSPACE's Android block rendered by tfbuild (for an SDK/NDK pair
    that has only the files tfbuild inspects: a linux build never fetches them, so this proves
    Bazel parses the block), and the contrib Makefile's dependencies already in place
    (``downloads/``, protobuf and nsync), so those steps are skipped as on an offline CI."""
    import subprocess

    from android_dirs import make_ndk
    from treegen import make_tf1_tree

    from tfbuild.pipeline.declarations.options import AndroidOptions
    from tfbuild.pipeline.flavours.workspace import apply_block, render_android_block, resolve_android_repositories
    from tfbuild.toolchain.tf_versions import tree_requirements
    from tfbuild.tree.facts import read_tree_facts

    make_tf1_tree(root)
    (root / ".bazelversion").write_text(TREE_BAZEL_VERSION + "\n")
    sdk = android_dir / "sdk"
    for directory in (sdk / "platforms" / "android-23", sdk / "build-tools" / "26.0.1"):
        directory.mkdir(parents=True, exist_ok=True)
    ndk = make_ndk(android_dir / "ndk", revision="18.1.5063045")
    requirements = tree_requirements(read_tree_facts(root))
    repositories = resolve_android_repositories(
        AndroidOptions(sdk=sdk, ndk=ndk), requirements,
        sdk_path_in_build="/opt/android-sdk", ndk_path_in_build="/opt/android-ndk",
    )
    workspace = root / "WORKSPACE"
    workspace.write_text(apply_block(workspace.read_text(), render_android_block(repositories, requirements), where=str(workspace)))
    identity = ["-c", "user.name=tfbuild tests", "-c", "user.email=tests@tfbuild.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "-C", str(root), "add", "WORKSPACE", ".bazelversion"], check=True)
    subprocess.run(["git", *identity, "-C", str(root), "commit", "-qm", "Pin Bazel; Android repositories"], check=True)
    makefile_dir = root / "tensorflow" / "contrib" / "makefile"
    for script in ("download_dependencies.sh", "compile_linux_protobuf.sh", "compile_nsync.sh"):
        subprocess.run(["bash", str(makefile_dir / script)], cwd=root, check=True, capture_output=True)
    return root


def app_header(app: str, out_dir: Path) -> Path:
    """``tfbuild header`` for ``tests/data/apps/<app>.json``, run as a user runs it."""
    import subprocess
    import sys

    header = out_dir / "ops_to_register.h"
    done = subprocess.run(
        [sys.executable, "-m", "tfbuild", "header", str(APPS_DIR / f"{app}.json"), "-o", str(header)],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return header


def tree_plan(
    target: str, flavour: str, tree: Path, app: str, header: Path, out_dir: Path, *, cache_prefix: str
) -> BuildPlan:
    """The planner's plan for ``flavour`` on ``tree`` with ``header`` (what ``tfbuild build``
    would run), for the benchmark to execute and time without the analysis in front."""
    from tfbuild.pipeline.declarations.options import Flags, resolve_build_options
    from tfbuild.pipeline.flavours import plan_build
    from tfbuild.tree.facts import read_tree_facts

    options = resolve_build_options(
        Flags.named(target=target, flavour=flavour, source=str(tree), models=[str(APPS_DIR / f"{app}.json")],
                    output_dir=str(out_dir), cache_prefix=cache_prefix),
        environ={}, cwd=out_dir.parent,
    )
    return plan_build(options, header_text=header.read_text(), tree=read_tree_facts(tree), flavour=flavour)


def registered_kernels(benchmark: Path) -> tuple[set[tuple[str, str]], set[str]]:
    """(op, kernel class) of the CPU and DEFAULT kernels and the ops a test tree's benchmark binary registered."""
    import subprocess

    output = subprocess.run([str(benchmark)], capture_output=True, text=True, check=True).stdout
    return _parse_registry(output)


def _parse_registry(output: str) -> tuple[set[tuple[str, str]], set[str]]:
    kernels, ops = set(), set()
    for line in output.splitlines():
        fields = line.split("\t")
        if fields[0] == "kernel" and fields[2] in ("CPU", "DEFAULT"):  # what a CPU build runs
            kernels.add((fields[1], "".join(fields[3].split())))
        elif fields[0] == "op":
            ops.add(fields[1])
    return kernels, ops


REGISTRY_PROBE = """
import ctypes, sys
library = ctypes.CDLL(sys.argv[1])
for prefix, name in (("kernel", "TfStandinRegisteredKernels"), ("op", "TfStandinRegisteredOps")):
    function = getattr(library, name)
    function.restype = ctypes.c_char_p
    for line in function().decode().splitlines():
        print(prefix + "\t" + line)
"""


def library_registry(library: Path) -> tuple[set[tuple[str, str]], set[str]]:
    """Like :func:`registered_kernels`, for a test tree's shared library (``libtensorflow_cc.so``):
    loaded in a fresh process, its static initializers register what selective registration kept."""
    import subprocess
    import sys

    output = subprocess.run(
        [sys.executable, "-c", REGISTRY_PROBE, str(library)], capture_output=True, text=True, check=True
    ).stdout
    return _parse_registry(output)
