"""``tfbuild aar --maven-repo``: the repository layout, checked by a real Maven client resolving
it offline (Debian's ``mvn``, :mod:`maven_client`), and the rules a published version keeps."""

from __future__ import annotations

import hashlib

import pytest
from maven_client import resolve_offline

from tfbuild.errors import ConfigError, OutputPathError
from tfbuild.pipeline.outputs.android.maven import (
    CHECKSUMS,
    METADATA,
    default_coordinates,
    parse_coordinates,
    publish,
)


@pytest.mark.maven
def test_maven_resolves_the_published_aar_offline_with_strict_checksums(tmp_path):
    repo = tmp_path / "repo"
    coordinates = parse_coordinates("com.example.apps:tensorflow-android:1.9.0-app1")
    aar = b"PK-not-really-a-zip-but-bytes-maven-moves"
    done = publish(aar, repo, coordinates, description="a test", epoch=1_700_000_000)
    assert done.aar == repo / "com/example/apps/tensorflow-android/1.9.0-app1/tensorflow-android-1.9.0-app1.aar"
    for extension in CHECKSUMS:
        checksum = done.aar.with_name(done.aar.name + f".{extension}").read_text()
        assert checksum == hashlib.new(extension, aar).hexdigest()
    resolved = resolve_offline(repo, str(coordinates), tmp_path / "app")
    assert resolved.returncode == 0, resolved.stdout[-3000:]
    assert (tmp_path / "app/resolved/tensorflow-android-1.9.0-app1.aar").read_bytes() == aar

    # A checksum that disagrees fails the strict client: the checksums are really read.
    done.aar.with_name(done.aar.name + ".sha1").write_text("0" * 40)
    broken = resolve_offline(repo, str(coordinates), tmp_path / "app2")
    assert broken.returncode != 0
    assert "checksum" in broken.stdout.lower()


def test_a_second_version_is_listed_beside_the_first_and_a_published_version_never_changes(tmp_path):
    repo = tmp_path / "repo"
    first, second = (parse_coordinates(f"org.tensorflow:tensorflow-android:1.9.0-{n}") for n in ("a", "b"))
    publish(b"one", repo, first, description="x", epoch=0)
    publish(b"two", repo, second, description="x", epoch=0)
    metadata = (repo / "org/tensorflow/tensorflow-android" / METADATA).read_text()
    assert "<version>1.9.0-a</version>" in metadata and "<version>1.9.0-b</version>" in metadata
    assert "<latest>1.9.0-b</latest>" in metadata and "<lastUpdated>19700101000000</lastUpdated>" in metadata
    again = publish(b"one", repo, first, description="x", epoch=0)
    assert again.written == ()
    with pytest.raises(OutputPathError, match="already published with other bytes"):
        publish(b"changed", repo, first, description="x", epoch=0)
    assert (repo / first.version_dir / first.file_name("aar")).read_bytes() == b"one"


def test_the_same_inputs_give_the_same_repository_bytes(tmp_path):
    coordinates = default_coordinates("tensorflow", "1.9.0-rc0")
    assert str(coordinates) == "org.tensorflow:tensorflow-android:1.9.0-rc0-tfbuild"
    for run in ("a", "b"):
        publish(b"aar", tmp_path / run, coordinates, description="x", epoch=1_700_000_000)
    files = {path.relative_to(tmp_path / "a"): path.read_bytes() for path in (tmp_path / "a").rglob("*") if path.is_file()}
    assert files == {path.relative_to(tmp_path / "b"): path.read_bytes()
                     for path in (tmp_path / "b").rglob("*") if path.is_file()}
    assert len(files) == 3 * (1 + len(CHECKSUMS))


@pytest.mark.parametrize("text", ["a:b", "a:b:c:d", "a:../b:1", "a:b:1/2", ":b:1", "a b:c:1", "a:b:.."])
def test_coordinates_that_are_not_group_artifact_version_are_refused(text):
    with pytest.raises(ConfigError, match="is not GROUP:ARTIFACT:VERSION"):
        parse_coordinates(text)


def test_source_date_epoch_an_aar_cannot_carry_is_one_line_naming_where_it_came_from():
    from tfbuild.pipeline.outputs.android.aar import zip_timestamp

    with pytest.raises(ConfigError, match=r"^\$SOURCE_DATE_EPOCH: 99999999999999 is not a time a zip file can carry"):
        zip_timestamp(99999999999999, "$SOURCE_DATE_EPOCH")
    assert zip_timestamp(None) == zip_timestamp(0) == (1980, 1, 1, 0, 0, 0)
    assert zip_timestamp(1700000001) == (2023, 11, 14, 22, 13, 20)  # two-second steps


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("SOURCE_DATE_EPOCH", "99999999999999", "$SOURCE_DATE_EPOCH: 99999999999999 is not a time a zip file can carry"),
    ("SOURCE_DATE_EPOCH", "-1", "$SOURCE_DATE_EPOCH: "),
    ("TFBUILD_SOURCE_DATE_EPOCH", "soon", "$TFBUILD_SOURCE_DATE_EPOCH: "),
])
def test_tfbuild_aar_reads_the_epoch_as_every_command_does(variable, value, message, tmp_path, monkeypatch, capsys):
    """``tfbuild aar`` takes the build option (flag, either variable, tfbuild.toml) and refuses a
    bad value as the build does (exit 2), before it reads any build."""
    from tfbuild.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, value)
    assert main(["aar", str(tmp_path / "nowhere"), "-o", str(tmp_path / "a.aar")]) == 2
    assert message in capsys.readouterr().err


def test_a_publish_stopped_halfway_is_completed_by_the_next_and_the_aar_is_not_rewritten(tmp_path):
    repo = tmp_path / "repo"
    coordinates = parse_coordinates("org.tensorflow:tensorflow-android:1.9.0-a")
    done = publish(b"one", repo, coordinates, description="x", epoch=0)
    metadata = repo / "org/tensorflow/tensorflow-android" / METADATA
    # As a SIGTERM after the AAR and before its metadata and one checksum would leave it:
    metadata.unlink()
    done.aar.with_name(done.aar.name + ".sha1").unlink()
    stamp = done.aar.stat().st_mtime_ns
    again = publish(b"one", repo, coordinates, description="x", epoch=0)
    # Only what is missing: the metadata's own checksums still match what it is written again with.
    assert {path.name for path in again.written} == {METADATA, "tensorflow-android-1.9.0-a.aar.sha1"}
    assert "<version>1.9.0-a</version>" in metadata.read_text()
    assert done.aar.stat().st_mtime_ns == stamp and done.aar.read_bytes() == b"one"
