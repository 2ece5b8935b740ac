"""The options resolver: defaults < tfbuild.toml < environment < CLI flags, for every kind of
option; unknown keys and bad values are one-line ConfigErrors (tests/invalid_configs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.errors import ConfigError
from tfbuild.model.header import DEFAULT_OPS
from tfbuild.pipeline.declarations.options import Flags, resolve_build_options

INVALID = sorted((Path(__file__).parent / "invalid_configs").glob("*.toml"))

CONFIG = """
[build]
target = "pi-armv7"
models = ["models/a.pb", "models/b.pb"]
source = "tf"
out = "out-from-config"
jobs = 3
timeout = 600
local = true
extra_cflags = ["-Os"]
cache_prefix = "fromconfig"

[header]
granularity = "op"

[android]
ndk = "ndk-from-config"
ndk_api_level = 24
"""


def resolve(cli=None, *, env=None, cwd: Path, config: Path | None = None, **kw):
    return resolve_build_options(Flags.named(**(cli or {})), environ=env or {}, cwd=cwd, config_file=config, **kw)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tfbuild.toml").write_text(CONFIG)
    return tmp_path


def test_defaults(tmp_path):
    options = resolve({"target": "linux-x86_64"}, cwd=tmp_path)
    assert options.output_dir == tmp_path.resolve() / "tfbuild-out" / "linux-x86_64"
    assert options.flavour is None and options.source is None and options.models == ()
    assert options.local is False and options.dry_run is False and options.timeout is None
    assert options.header.default_ops == DEFAULT_OPS and options.header.granularity == "kernel"
    assert options.jobs >= 1 and options.cache_prefix == "tfbuild"
    assert options.config_file is None


def test_config_file_in_cwd_is_read_and_its_paths_are_relative_to_it(project, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    options = resolve(cwd=elsewhere, config=project / "tfbuild.toml")
    assert options.target == "pi-armv7"
    assert options.models == (project / "models/a.pb", project / "models/b.pb")
    assert options.source == project / "tf"
    assert options.output_dir == project / "out-from-config"
    assert (options.jobs, options.timeout, options.local) == (3, 600.0, True)
    assert options.extra_cflags == ("-Os",) and options.cache_prefix == "fromconfig"
    assert options.header.granularity == "op"
    assert options.android.ndk == project / "ndk-from-config" and options.android.ndk_api_level == 24
    assert resolve(cwd=project).config_file == project / "tfbuild.toml"  # found without --config


def test_environment_overrides_config(project):
    env = {
        "TFBUILD_TARGET": "linux-aarch64",
        "TFBUILD_JOBS": "7",
        "TFBUILD_LOCAL": "no",
        "TFBUILD_MODELS": "x.pb:y.pb",
        "TFBUILD_EXTRA_CFLAGS": "-O3 '-DNAME=a b'",
        "TFBUILD_HEADER_GRANULARITY": "kernel",
        "TFBUILD_ANDROID_NDK": "ndk-from-env",
    }
    options = resolve(env=env, cwd=project)
    assert options.target == "linux-aarch64" and options.jobs == 7 and options.local is False
    assert options.models == (project / "x.pb", project / "y.pb")
    assert options.extra_cflags == ("-O3", "-DNAME=a b")
    assert options.header.granularity == "kernel"
    assert options.android.ndk == project / "ndk-from-env"
    assert options.timeout == 600.0  # untouched by the environment: still the config's


def test_cli_overrides_environment_and_config(project):
    env = {"TFBUILD_TARGET": "linux-aarch64", "TFBUILD_JOBS": "7", "TFBUILD_OUT": "env-out"}
    cli = {"target": "android-arm64", "jobs": 1, "output_dir": Path("cli-out"), "local": False, "dry_run": True}
    options = resolve(cli, env=env, cwd=project)
    assert options.target == "android-arm64" and options.jobs == 1 and options.local is False
    assert options.output_dir == project / "cli-out" and options.dry_run is True


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("TFBUILD_MOBILE_TYPES", "tiny", "unknown mobile types 'tiny'"),
    ("TFBUILD_JAVA_PACKAGE", "com.example.my_app", "'my_app' is not a plain Java identifier"),
    ("TFBUILD_JAVA_PACKAGE", "app", "it needs two parts or more"),
    ("TFBUILD_JAVA_PACKAGE", "com.example.new", "'new' is not a plain Java identifier"),
    ("TFBUILD_JNI_LIBRARY", "libtf.so", "JNI library name 'libtf.so' is not letters, digits and '_'"),
])
def test_android_names_are_checked_where_they_are_given(tmp_path, variable, value, message):
    """A JNI library's native methods are named after its Java package: a name JNI would mangle
    (or Java refuse) is refused up front, naming where it came from."""
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        resolve(env={"TFBUILD_TARGET": "android-arm64", variable: value}, cwd=tmp_path)
    assert caught.value.message.startswith(f"${variable}: ")


def test_android_home_variables_are_a_fallback(tmp_path):
    env = {"TFBUILD_TARGET": "android-arm64", "ANDROID_NDK_HOME": "/opt/ndk-a", "ANDROID_HOME": "/opt/sdk-a"}
    options = resolve(env=env, cwd=tmp_path)
    assert (options.android.ndk, options.android.sdk) == (Path("/opt/ndk-a"), Path("/opt/sdk-a"))
    assert (options.android.ndk_origin, options.android.sdk_origin) == ("$ANDROID_NDK_HOME", "$ANDROID_HOME")
    env["TFBUILD_ANDROID_NDK"] = "/opt/ndk-b"
    assert resolve(env=env, cwd=tmp_path).android.ndk == Path("/opt/ndk-b")


@pytest.mark.parametrize(("flag", "in_config", "env", "found", "origin"), [
    (None, False, {"ANDROID_NDK_ROOT": "/opt/root"}, "/opt/root", "$ANDROID_NDK_ROOT"),
    (None, False, {"ANDROID_NDK_ROOT": "/opt/root", "ANDROID_NDK_HOME": "/opt/home"}, "/opt/home", "$ANDROID_NDK_HOME"),
    (None, True, {"ANDROID_NDK_ROOT": "/opt/root", "ANDROID_NDK_HOME": "/opt/home"}, "ndk-from-config", "config"),
    (None, True, {"ANDROID_NDK_HOME": "/opt/home", "TFBUILD_ANDROID_NDK": "/opt/tfbuild"}, "/opt/tfbuild",
     "$TFBUILD_ANDROID_NDK"),
    ("/opt/flag", True, {"ANDROID_NDK_HOME": "/opt/home", "TFBUILD_ANDROID_NDK": "/opt/tfbuild"}, "/opt/flag",
     "--ndk"),
])
def test_the_ndk_comes_from_the_flag_the_file_then_the_android_variables(tmp_path, flag, in_config, env, found,
                                                                          origin):
    """--ndk, then tfbuild.toml (or tfbuild's own variable, which overrides the file as every
    TFBUILD_* does), then ANDROID_NDK_HOME, then ANDROID_NDK_ROOT; each says where it came from."""
    config = tmp_path / "tfbuild.toml"
    config.write_text('[android]\nndk = "ndk-from-config"\n' if in_config else "")
    options = resolve({"ndk": flag}, env={"TFBUILD_TARGET": "android-arm64", **env}, cwd=tmp_path).android
    assert options.ndk == tmp_path / found  # an absolute path stays itself
    assert options.ndk_origin == (f"{config}: [android] ndk" if origin == "config" else origin)


def test_the_config_file_wins_over_the_sdk_variables_too(project):
    (project / "tfbuild.toml").write_text(CONFIG + 'sdk = "sdk-from-config"\n')
    options = resolve(env={"ANDROID_HOME": "/opt/sdk"}, cwd=project).android
    assert (options.sdk, options.sdk_origin) == (project / "sdk-from-config", f"{project / 'tfbuild.toml'}: [android] sdk")
    assert options.ndk_origin == f"{project / 'tfbuild.toml'}: [android] ndk"


def test_tfbuild_config_variable_names_the_file(project, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text('[build]\ntarget = "ios-arm64"\n')
    assert resolve(env={"TFBUILD_CONFIG": str(other)}, cwd=project).target == "ios-arm64"


def test_empty_environment_values_are_ignored(project):
    assert resolve(env={"TFBUILD_TARGET": ""}, cwd=project).target == "pi-armv7"


def test_missing_target_is_an_error_unless_not_required(tmp_path):
    with pytest.raises(ConfigError, match="no target given"):
        resolve(cwd=tmp_path)
    assert resolve(cwd=tmp_path, require_target=False).target == ""


def test_bad_environment_value_names_the_variable(tmp_path):
    with pytest.raises(ConfigError, match=r"\$TFBUILD_JOBS: expected a whole number"):
        resolve({"target": "linux-x86_64"}, env={"TFBUILD_JOBS": "lots"}, cwd=tmp_path)
    with pytest.raises(ConfigError, match=r"--flavour: unknown flavour 'make'"):
        resolve({"target": "linux-x86_64", "flavour": "make"}, cwd=tmp_path)


def test_missing_config_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        resolve(cwd=tmp_path, config=tmp_path / "nope.toml")


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_config_is_a_config_error_naming_the_file(path, tmp_path):
    expected = path.read_text(errors="replace").splitlines()[0].removeprefix("# error: ")
    with pytest.raises(ConfigError) as caught:
        resolve(cwd=tmp_path, config=path)
    assert expected in caught.value.one_line()
    assert str(path) in caught.value.one_line()


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_config_exits_2_with_one_line(path, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(["build", "--config", str(path), "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert path.name in err
