"""``tfbuild aar``: the JNI libraries of two real Android builds (arm64-v8a and armeabi-v7a, the
generated TF 1.x tree built with the NDK stand-in's clang) packed into one AAR, validated the
way Android's own tools read it: ``aapt2 link`` against Debian's android-framework-res, the
JDK's ``javap`` on ``classes.jar``; and the same bytes when it is packed again."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import FRAMEWORK_RES
from manifests import write_manifest

from tfbuild.cli import main

pytestmark = [pytest.mark.android_ndk, pytest.mark.android_packaging]

ABIS = {"android-arm64": ("arm64-v8a", 183), "android-armv7": ("armeabi-v7a", 40), "android-x86_64": ("x86_64", 62)}
"""target -> (ABI, ELF e_machine: EM_AARCH64, EM_ARM, EM_X86_64): the three ABIs Play's AARs carry."""
CLASS = "org/tensorflow/tfbuild/TensorFlowInference.class"
ENTRIES = [
    "AndroidManifest.xml", "R.txt", "classes.jar",
    "jni/arm64-v8a/libtensorflow_inference.so", "jni/armeabi-v7a/libtensorflow_inference.so",
    "jni/x86_64/libtensorflow_inference.so", "proguard.txt",
]


@pytest.fixture(scope="module")
def android_builds(pristine_trees, tmp_path_factory, mini_ndk) -> dict[str, Path]:
    """One build per ABI of a Const model, as three CI jobs would make them."""
    root = tmp_path_factory.mktemp("aar")
    tree = Path(shutil.copytree(pristine_trees["tf1"], root / "tf1", symlinks=True))
    model = root / "model_ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    outs = {}
    for target in ABIS:
        out = root / f"out-{target}"
        code = main(["build", "--source", str(tree), "--model", str(model), "--out", str(out), "--target", target,
                     "--flavour", "makefile", "--ndk", str(mini_ndk), "--local", "--jobs", "2",
                     "--java-api", "tfbuild"])
        assert code == 0, target
        outs[target] = out
    return outs


def test_the_aar_holds_the_three_abis_and_passes_aapt2(android_builds, tmp_path, capsys):
    aar = tmp_path / "app.aar"
    code = main(["aar", *map(str, android_builds.values()), "-o", str(aar)])
    text = capsys.readouterr().out
    assert code == 0, text
    with zipfile.ZipFile(aar) as archive:
        infos = archive.infolist()
        assert [info.filename for info in infos] == ENTRIES  # sorted, nothing else
        assert {info.date_time for info in infos} == {(1980, 1, 1, 0, 0, 0)}
        archive.extractall(tmp_path / "unpacked")
    unpacked = tmp_path / "unpacked"
    for target, (abi, machine) in ABIS.items():
        packed = (unpacked / "jni" / abi / "libtensorflow_inference.so").read_bytes()
        assert packed == (android_builds[target] / "libtensorflow_inference.so").read_bytes()
        assert int.from_bytes(packed[18:20], "little") == machine  # e_machine
    manifest = (unpacked / "AndroidManifest.xml").read_text()
    assert 'package="org.tensorflow.tfbuild"' in manifest and 'android:minSdkVersion="21"' in manifest
    assert_aapt2_links(unpacked / "AndroidManifest.xml", tmp_path / "check.apk")
    assert (unpacked / "R.txt").read_bytes() == b""
    assert "native <methods>;" in (unpacked / "proguard.txt").read_text()

    with zipfile.ZipFile(unpacked / "classes.jar") as jar:
        assert jar.namelist() == ["META-INF/MANIFEST.MF", CLASS]
        class_file = jar.read(CLASS)
    assert class_file[:4] == b"\xca\xfe\xba\xbe" and int.from_bytes(class_file[6:8], "big") == 52  # Java 8
    methods = subprocess.run(["javap", "-p", "-cp", str(unpacked / "classes.jar"), "org.tensorflow.tfbuild.TensorFlowInference"],
                             capture_output=True, text=True, check=True).stdout
    for declaration in ("private static native long nativeCreate(byte[]);",
                        "private static native float[][] nativeRun(long, java.lang.String[], float[][], long[][], "
                        "java.lang.String[]);",
                        "private static native void nativeClose(long);"):
        assert declaration in methods, methods

    digest = hashlib.sha256(aar.read_bytes()).hexdigest()
    for out in android_builds.values():
        recorded = json.loads((out / "manifest.json").read_text())["aar"]
        assert recorded["sha256"] == digest and recorded["abis"] == ["arm64-v8a", "armeabi-v7a", "x86_64"]
        assert recorded["entries"] == ENTRIES


def assert_aapt2_links(manifest: Path, apk: Path) -> None:
    """``aapt2 link`` of the manifest against the platform's resources: exit 0, and a manifest
    it must refuse (an attribute the platform does not define) does fail, so the check can fail."""
    link = ["aapt2", "link", "--manifest", str(manifest), "-I", str(FRAMEWORK_RES), "-o", str(apk)]
    done = subprocess.run(link, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    broken = manifest.with_name("Broken.xml")
    broken.write_text(manifest.read_text().replace('android:minSdkVersion=', 'android:minSdkVersio='))
    refused = subprocess.run([*link[:3], str(broken), *link[4:]], capture_output=True, text=True)
    assert refused.returncode != 0 and "attribute android:minSdkVersio not found" in refused.stderr


def test_packing_again_gives_the_same_bytes_and_source_date_epoch_sets_the_time(android_builds, tmp_path,
                                                                                 monkeypatch):
    builds = [str(out) for out in reversed(android_builds.values())]  # the order given does not matter
    assert main(["aar", *builds, "-o", str(tmp_path / "a.aar")]) == 0
    assert main(["aar", *builds[::-1], "-o", str(tmp_path / "b.aar")]) == 0
    assert (tmp_path / "a.aar").read_bytes() == (tmp_path / "b.aar").read_bytes()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # 2023-11-14 22:13:20 UTC
    assert main(["aar", *builds, "-o", str(tmp_path / "c.aar")]) == 0
    with zipfile.ZipFile(tmp_path / "c.aar") as archive:
        assert {info.date_time for info in archive.infolist()} == {(2023, 11, 14, 22, 13, 20)}


def test_what_cannot_go_into_an_aar_is_one_line(android_builds, tmp_path, capsys):
    arm64 = android_builds["android-arm64"]
    linux = tmp_path / "linux-build"
    write_manifest(linux, target="linux-x86_64")
    cases = [
        ([str(arm64), str(linux)], f"{linux / 'manifest.json'}: the build of linux-x86_64 made no JNI library"),
        ([str(arm64), str(arm64)], f"{arm64}: ABI arm64-v8a is already given by {arm64}"),
        ([str(tmp_path / "nowhere")], "no manifest, so no finished build here"),
    ]
    for builds, message in cases:
        target = tmp_path / "out.aar"
        code = main(["aar", *builds, "-o", str(target)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 3 and len(err) == 1 and message in err[0], err
        assert not target.exists()
    assert not re.search(r"\.tmp|tfbuild-", " ".join(p.name for p in tmp_path.iterdir()))
