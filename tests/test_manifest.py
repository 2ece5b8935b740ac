"""manifest.json: what a build made, from what, in which toolchain, with digests."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path, PurePosixPath

import pytest
from manifests import write_manifest as write_test_manifest

from tfbuild import __version__
from tfbuild.errors import ManifestError
from tfbuild.pipeline.outputs.manifest import Manifest, TensorFlowRecord, make_manifest, update_manifest, write_manifest
from tfbuild.pipeline.planning.plan import Artifact, BuildPlan, ImageSpec


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def plan(out: Path, image: ImageSpec | None) -> BuildPlan:
    return BuildPlan(
        target="pi-armv7",
        flavour="makefile",
        image=image,
        mounts=(),
        steps=(),
        generated_files=(),
        artifacts=(
            Artifact(PurePosixPath("/src/gen/lib/libtensorflow-core.a"), "libtensorflow-core.a", "static-lib"),
            Artifact(PurePosixPath("/src/gen/bin/benchmark"), "benchmark", "executable"),
        ),
        output_dir=out,
    )


def build_outputs(tmp_path: Path) -> tuple[Path, Path, Path, Path, Path]:
    """What a finished build leaves: its output directory with a header, an archive and an
    executable, and the model it was built for."""
    out = tmp_path / "out"
    (out / "header").mkdir(parents=True)
    header = out / "header" / "ops_to_register.h"
    header.write_text("#define SHOULD_REGISTER_OP(op) true\n")
    lib, exe = out / "libtensorflow-core.a", out / "benchmark"
    lib.write_bytes(b"!<arch>\n" + b"x" * 100)
    exe.write_bytes(b"\x7fELF" + b"y" * 10)
    model = tmp_path / "model.pb"
    model.write_bytes(b"graph")
    return out, header, lib, exe, model


def test_manifest_records_inputs_outputs_and_toolchain(tmp_path):
    out, header, lib, exe, model = build_outputs(tmp_path)
    saved = tmp_path / "saved_model"
    (saved / "variables").mkdir(parents=True)
    (saved / "saved_model.pb").write_bytes(b"meta")
    (saved / "variables" / "variables.index").write_bytes(b"index")
    image = ImageSpec("linux.Dockerfile", {"BASE_IMAGE": "tfbuild-base:bookworm"}, "tfbuild-toolchain:linux-0123456789abcdef")
    tensorflow = TensorFlowRecord(version="1.12.0", commit="a" * 40, source="/src/tf", analysis_version="2.21.0")
    when = dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=dt.UTC)

    manifest = make_manifest(
        plan(out, image), artifacts=(lib, exe), header=header, models=(model, saved),
        tensorflow=tensorflow, image_id="sha256:feed", now=when,
    )
    path = write_manifest(manifest, out)
    data = json.loads(path.read_text())

    assert path == out / "manifest.json"
    assert (data["target"], data["flavour"], data["tfbuild_version"]) == ("pi-armv7", "makefile", __version__)
    assert data["created"] == "2024-05-06T07:08:09Z"
    assert data["tensorflow"] == {"version": "1.12.0", "commit": "a" * 40, "source": "/src/tf", "analysis_version": "2.21.0",
                                  "work_commit": None, "describe": None}
    assert data["toolchain"] == {
        "image_tag": image.tag, "image_id": "sha256:feed", "dockerfile": "linux.Dockerfile",
        "build_args": {"BASE_IMAGE": "tfbuild-base:bookworm"}, "base_source": None, "fixups": [],
    }
    assert data["header"]["name"] == "header/ops_to_register.h" and data["header"]["sha256"] == sha(header)
    artifacts = {a["name"]: a for a in data["artifacts"]}
    assert artifacts["libtensorflow-core.a"] == {
        "name": "libtensorflow-core.a", "sha256": sha(lib), "size": 108, "kind": "static-lib", "path": str(lib),
        "load_alignment": None,  # an archive has no LOAD segments
    }
    assert artifacts["benchmark"]["kind"] == "executable"
    models = {m["name"]: m for m in data["models"]}
    assert models["model.pb"]["sha256"] == sha(model) and models["model.pb"]["size"] == 5
    assert models["saved_model"]["size"] == len(b"meta") + len(b"index")  # a SavedModel directory, file by file
    assert len(models["saved_model"]["sha256"]) == 64
    # Read back as the types the build wrote, every section alike.
    assert Manifest.read(out) == manifest


def test_a_rerun_section_is_added_and_kept_typed(tmp_path):
    write_test_manifest(tmp_path, target="android-arm64",
                        android_ndk={"path": "/ndk", "revision": "26.1", "adapter": "clang", "stl": "c++_static"})
    update_manifest(tmp_path, "verify", {"passed": True})
    manifest = Manifest.read(tmp_path)
    assert manifest.verify == {"passed": True} and manifest.android_ndk is not None
    assert manifest.android_ndk.adapter == "clang"


@pytest.mark.parametrize(("fields", "message"), [
    ({"artifacts": [{"name": "libtensorflow-core.a", "size": "big"}]}, "artifacts[0].size: expected a whole number"),
    ({"header": None}, "header: expected a table"),
    ({"schema": 0}, "manifest schema 0, this tfbuild reads schema 1"),
    ({"surprise": 1}, "unknown key 'surprise'"),
])
@pytest.mark.parametrize("command", [["report", "--out", "{out}"],
                                     ["linkflags", "--target", "linux-x86_64", "--artifacts", "{out}"],
                                     ["verify", "--out", "{out}"]])
def test_a_damaged_manifest_is_one_line_with_its_own_exit_code(tmp_path, capsys, fields, message, command):
    """report, linkflags and verify on a manifest with wrong types: one line naming the file and
    the key, exit 9 (each used to read its own subset of the JSON; report and linkflags crashed)."""
    from tfbuild.cli import main

    out = write_test_manifest(tmp_path / "out", **fields)
    code = main([word.format(out=out) for word in command])
    err = capsys.readouterr().err.strip()
    assert code == ManifestError.exit_code == 9
    assert len(err.splitlines()) == 1 and f"{out / 'manifest.json'}" in err and message in err, err


def test_host_builds_have_no_toolchain_and_time_is_utc(tmp_path):
    out = tmp_path
    header = out / "ops_to_register.h"
    header.write_text("x")
    tensorflow = TensorFlowRecord(version="2.21.0", commit=None, source=None, analysis_version="2.21.0")
    local = dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    manifest = make_manifest(plan(out, None), artifacts=(), header=header, models=(), tensorflow=tensorflow,
                             image_id=None, now=local)
    assert manifest.toolchain is None and manifest.created == "2024-01-01T10:00:00Z"
    assert json.loads(manifest.to_json())["toolchain"] is None


def test_a_rerun_with_the_same_artifacts_keeps_verify_and_a_changed_one_drops_it(tmp_path):
    """Issue 25: a rerun rewrote manifest.json without its verify section. Decision: the rerun
    keeps ``verify`` (and ``aar``) while the artifacts, header and models are byte-identical."""
    out, header, lib, exe, model = build_outputs(tmp_path)
    tensorflow = TensorFlowRecord(version="1.12.0", commit=None, source="/src/tf", analysis_version="2.21.0")

    def build() -> None:
        manifest = make_manifest(plan(out, None), artifacts=(lib, exe), header=header, models=(model,),
                                 tensorflow=tensorflow, image_id=None)
        write_manifest(manifest, out)

    build()
    update_manifest(out, "verify", {"passed": True})
    update_manifest(out, "aar", {"name": "x.aar"})
    build()  # the same bytes: the verdict still holds
    again = Manifest.read(out)
    assert again.verify == {"passed": True} and again.aar == {"name": "x.aar"}
    exe.write_bytes(b"\x7fELF" + b"z" * 10)
    build()  # another binary: no verdict about it yet
    changed = Manifest.read(out)
    assert changed.verify is None and changed.aar is None
    assert "verify" not in json.loads((out / "manifest.json").read_text())
