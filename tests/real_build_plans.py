"""Build plans for the real-build tests, made from tfbuild's own pieces (target profiles, the
op-library planner, image specs), and a helper that runs a check command in the linux toolchain.

The op-library plan mounts the example sources at /src, the installed TensorFlow package (its
headers and libtensorflow_framework) at /opt/tensorflow, the header's directory at /hdr, and a
host work directory at /work, where the library is built.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tfbuild.build_plan import Artifact, BuildPlan, Mount
from tfbuild.container import BuildContainer, ContainerConfig
from tfbuild.example import example_sources_dir
from tfbuild.ops_library import OpsLibrarySpec, installed_tensorflow_flags, plan_ops_library
from tfbuild.targets import get_target
from tfbuild.toolchain_images import toolchain_spec

SRC = PurePosixPath("/src")
TF_DIR = PurePosixPath("/opt/tensorflow")
HDR = PurePosixPath("/hdr")
WORK = PurePosixPath("/work")
TOOLS_IMAGE_DIR = PurePosixPath("/check")
LIBRARY_STEM = "libexample_ops"


def host_tensorflow_dir() -> Path:
    """The installed TensorFlow package directory (where include/ and the framework library are)."""
    include = next(flag[2:] for flag in installed_tensorflow_flags().compile_flags if flag.startswith("-I"))
    return Path(include).parent


def _in_container(flags: tuple[str, ...]) -> tuple[str, ...]:
    host = str(host_tensorflow_dir())
    return tuple(flag.replace(host, str(TF_DIR)) for flag in flags)


def ops_library_plan(target: str, out_dir: Path, *, header: Path | None) -> BuildPlan:
    """The example op library for ``target`` as its profile says (compiler, flags, kind), built in
    the profile's toolchain image; selective when ``header`` (an ops_to_register.h) is given."""
    profile = get_target(target).ops_library
    assert profile is not None and profile.dockerfile is not None, target
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = ".so" if profile.kind == "shared" else ".a"
    flags = installed_tensorflow_flags()
    spec = OpsLibrarySpec(
        sources=tuple(SRC / path.name for path in sorted(example_sources_dir().glob("*.cc"))),
        output=WORK / f"{LIBRARY_STEM}{suffix}",
        kind=profile.kind,  # type: ignore[arg-type]
        compiler=profile.compiler,
        archiver=profile.archiver,
        extra_cflags=profile.cflags,
        selective_header=HDR / header.name if header is not None else None,
        tf_compile_flags=_in_container(flags.compile_flags),
        tf_link_flags=_in_container(flags.link_flags) if profile.kind == "shared" else (),
    )
    library = plan_ops_library(spec)
    mounts = [
        Mount(SRC, source=example_sources_dir(), read_only=True),
        Mount(TF_DIR, source=host_tensorflow_dir(), read_only=True),
        Mount(WORK, source=out_dir),
    ]
    if header is not None:
        mounts.append(Mount(HDR, source=header.parent, read_only=True))
    return BuildPlan(
        target=target,
        flavour="ops-library",
        image=toolchain_spec(profile.dockerfile.removesuffix(".Dockerfile")),
        mounts=tuple(mounts),
        steps=library.build_steps(WORK),
        generated_files=(),
        artifacts=(Artifact(library.output, library.output.name, f"{profile.kind}-lib"),),
        output_dir=out_dir / "out",
    )


def run_in_toolchain(argv: list[str], host_dir: Path, *, name: str = "linux") -> str:
    """Run ``argv`` in toolchain ``name`` with ``host_dir`` at /check; its output (must exit 0)."""
    lines: list[str] = []
    mounts = (Mount(TOOLS_IMAGE_DIR, source=host_dir), Mount(SRC, source=example_sources_dir(), read_only=True))
    with BuildContainer(ContainerConfig(image=toolchain_spec(name).tag, mounts=mounts)) as box:
        code = box.run(argv, workdir=TOOLS_IMAGE_DIR, on_line=lines.append)
    output = "\n".join(lines)
    assert code == 0, f"{argv[0]} exited {code}:\n{output[-3000:]}"
    return output
