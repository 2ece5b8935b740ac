"""Each build option is declared once (tfbuild.pipeline.declarations.options.OPTIONS), and everything else is
made from that declaration: so for every option, its flag, its variables and its tfbuild.toml
key each reach the same value on their own through the real command line, in the order flag >
environment > file > default, and ``config show`` names where the value came from."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.cli.output import jsonable
from tfbuild.errors import ConfigError
from tfbuild.model.header import HeaderOptions
from tfbuild.pipeline.caches.remote import RemoteOptions
from tfbuild.pipeline.declarations.options import (
    JOBS,
    OPTIONS,
    SOURCE,
    AndroidOptions,
    BuildOptions,
    DefaultContext,
    Flags,
    Option,
    resolve_with_origins,
)

# For each option: the values its flag is given (one per repetition; none for a switch), the same
# value as its environment variables hold it, as tfbuild.toml writes it (None: no key), and the
# value ``config show --json`` prints ({cwd}: the working directory, where tfbuild.toml is too).
SAMPLES: dict[str, tuple[list[str], str, str | None, object]] = {
    "target": (["pi-armv7"], "pi-armv7", '"pi-armv7"', "pi-armv7"),
    "app": (["cam"], "cam", None, "cam"),
    "models": (["a.pb", "b.pb"], f"a.pb{os.pathsep}b.pb", '["a.pb", "b.pb"]', ["{cwd}/a.pb", "{cwd}/b.pb"]),
    "source": (["tf"], "tf", '"tf"', "{cwd}/tf"),
    "flavour": (["bazel"], "bazel", '"bazel"', "bazel"),
    "output_dir": (["o"], "o", '"o"', "{cwd}/o"),
    "local": ([], "true", "true", True),
    "dry_run": ([], "1", None, True),
    "protobuf_rename": ([], "yes", "true", True),
    "jobs": (["5"], "5", "5", 5),
    "timeout": (["90"], "90", "90", 90.0),
    "cache_prefix": (["ci"], "ci", '"ci"', "ci"),
    "base_image": (["debian:12"], "debian:12", '"debian:12"', "debian:12"),
    "op_sources": (["x.cc"], "x.cc", '["x.cc"]', ["{cwd}/x.cc"]),
    "ops_library_name": (["myops"], "myops", '"myops"', "myops"),
    "extra_cflags": (["-Os", "-DX=a b"], "-Os '-DX=a b'", '["-Os", "-DX=a b"]', ["-Os", "-DX=a b"]),
    "output_nodes": (["softmax", "logits"], "softmax logits", '["softmax", "logits"]', ["softmax", "logits"]),
    "size_profile": (["small"], "small", '"small"', "small"),
    "protobuf_runtime": (["lite"], "lite", '"lite"', "lite"),
    "per_file_selection": ([], "on", "true", True),
    "source_date_epoch": (["1700000000"], "1700000000", "1700000000", 1700000000),
    "remote_cache": (["http://cache:8080/tf"], "http://cache:8080/tf", '"http://cache:8080/tf"', "http://cache:8080/tf"),
    "distcc_hosts": (["10.0.0.5:3632/8", "10.0.0.6"], "10.0.0.5:3632/8 10.0.0.6", '["10.0.0.5:3632/8", "10.0.0.6"]',
                     ["10.0.0.5:3632/8", "10.0.0.6"]),
    "vendor_dir": (["vendor"], "vendor", '"vendor"', "{cwd}/vendor"),
    "analysis_only": ([], "1", None, True),
    "default_ops": (["NoOp:NoOp"], "NoOp:NoOp", '"NoOp:NoOp"', "NoOp:NoOp"),
    "granularity": (["op"], "op", '"op"', "op"),
    "sdk": (["sdk"], "sdk", '"sdk"', "{cwd}/sdk"),
    "ndk": (["ndk"], "ndk", '"ndk"', "{cwd}/ndk"),
    "api_level": (["24"], "24", "24", 24),
    "build_tools": (["30.0.3"], "30.0.3", '"30.0.3"', "30.0.3"),
    "ndk_api_level": (["21"], "21", "21", 21),
    "mobile_types": (["slim"], "slim", '"slim"', "slim"),
    "java_package": (["com.example.app"], "com.example.app", '"com.example.app"', "com.example.app"),
    "jni_library": (["app_tf"], "app_tf", '"app_tf"', "app_tf"),
    "java_api": (["tfbuild"], "tfbuild", '"tfbuild"', "tfbuild"),
    "mirrors": (["git"], "git", '"git"', "{cwd}/git"),
    "mirror_mappings": (["zlib_archive=m/zlib@v1.2.11", "fft2d=m/fft2d@HEAD:src"],
                        "zlib_archive=m/zlib@v1.2.11 fft2d=m/fft2d@HEAD:src",
                        '["zlib_archive=m/zlib@v1.2.11", "fft2d=m/fft2d@HEAD:src"]',
                        [{"name": "zlib_archive", "mirror": "{cwd}/m/zlib", "ref": "v1.2.11", "subdir": ""},
                         {"name": "fft2d", "mirror": "{cwd}/m/fft2d", "ref": "HEAD", "subdir": "src"}]),
}
# --app needs a tfbuild.toml that declares the app: every run has one (without a target, the
# app's targets are not checked).
APPS = '[apps.cam]\nmodels = ["m.pb"]\ntargets = ["linux-x86_64"]\n'
IDS = [option.name for option in OPTIONS]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A working directory with no option set anywhere: no variable, an empty tfbuild.toml."""
    for option in OPTIONS:
        for name in option.variables:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("TFBUILD_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tfbuild.toml").write_text(APPS)
    return tmp_path


def show(capsys, *args: str) -> dict[str, dict[str, object]]:
    """``tfbuild config show --json`` with ``args``: each option's value and origin."""
    assert main(["config", "show", "--json", *args]) == 0
    options = json.loads(capsys.readouterr().out)["options"]
    assert list(options) == [option.name for option in OPTIONS]  # every option, in declaration order
    return options


def flag_args(option: Option[object]) -> list[str]:
    values = SAMPLES[option.name][0]
    if option.kind.switch:
        return [option.cli_flag]
    return [word for value in values for word in (option.cli_flag, value)]


def expected(option: Option[object], cwd: Path) -> object:
    return _filled(SAMPLES[option.name][3], cwd)


def _filled(value: object, cwd: Path) -> object:
    """``value`` with ``{cwd}`` filled in every string, inside lists and objects too."""
    if isinstance(value, list):
        return [_filled(item, cwd) for item in value]
    if isinstance(value, dict):
        return {key: _filled(item, cwd) for key, item in value.items()}
    return value.format(cwd=cwd) if isinstance(value, str) else value


def write_config(cwd: Path, option: Option[object]) -> Path:
    config = cwd / "tfbuild.toml"
    config.write_text(f"[{option.table}]\n{option.toml_key} = {SAMPLES[option.name][2]}\n{APPS}")
    return config


def test_every_option_has_a_sample_and_a_real_declaration():
    assert sorted(SAMPLES) == sorted(IDS), "a new option needs a sample here"
    assert len(set(IDS)) == len(IDS)
    for option in OPTIONS:
        assert option.env and all(name.startswith("TFBUILD_") for name in option.env), option.name
        assert option.help.strip().endswith(".") or option.help.strip().endswith(")"), option.name
        assert (SAMPLES[option.name][2] is None) == (option.table is None), option.name
        if option.kind.switch:
            assert not option.value_name, option.name
        else:  # a name for what the flag takes, never a Python type
            assert re.fullmatch(r"[A-Za-z0-9:/|,._=]+", option.value_name), (option.name, option.value_name)
            assert "[" not in option.value_name and "<" not in option.value_name


@pytest.mark.parametrize("option", OPTIONS, ids=IDS)
def test_the_flag_the_variables_and_the_file_each_reach_the_same_value(option, project, capsys):
    want = expected(option, project)
    by_flag = show(capsys, *flag_args(option))[option.name]
    assert by_flag == {"value": want, "origin": option.cli_flag}
    for variable in option.variables:
        os.environ[variable] = SAMPLES[option.name][1]
        try:
            assert show(capsys)[option.name] == {"value": want, "origin": f"${variable}"}
        finally:
            del os.environ[variable]
    if option.table is not None:
        config = write_config(project, option)
        assert show(capsys)[option.name] == {"value": want, "origin": f"{config}: {option.file_key}"}


@pytest.mark.parametrize("option", OPTIONS, ids=IDS)
def test_flag_over_environment_over_file_over_default(option, project, capsys, monkeypatch):
    """Every layer set at once: the origin ``config show`` names is the highest one."""
    default = show(capsys)[option.name]
    assert default["origin"] == "default"
    config = write_config(project, option) if option.table is not None else None
    for variable in option.fallback_env:  # other tools' variables rank below the file
        monkeypatch.setenv(variable, SAMPLES[option.name][1])
    if config is not None:
        assert show(capsys)[option.name]["origin"] == f"{config}: {option.file_key}"
    monkeypatch.setenv(option.env[0], SAMPLES[option.name][1])
    assert show(capsys)[option.name]["origin"] == f"${option.env[0]}"
    assert show(capsys, *flag_args(option))[option.name]["origin"] == option.cli_flag


def test_config_show_table_names_each_origin_with_its_table(project, capsys, monkeypatch):
    """Rich would read ``[build]`` as markup and drop it: the table prints it."""
    (project / "tfbuild.toml").write_text('[build]\njobs = 3\n[android]\nmobile_types = "full"\n' + APPS)
    monkeypatch.setenv("TFBUILD_SIZE_PROFILE", "small")
    monkeypatch.setenv("COLUMNS", "300")
    assert main(["config", "show", "--local"]) == 0
    table = capsys.readouterr().out
    assert re.search(r"jobs\s+3\s+\S*tfbuild.toml: \[build\] jobs", table)  # plain: stdout is no terminal
    assert re.search(r"mobile_types\s+full\s+\S*tfbuild.toml: \[android\] mobile_types", table)
    assert re.search(r"size_profile\s+small\s+\$TFBUILD_SIZE_PROFILE", table)
    assert re.search(r"local\s+True\s+--local", table)
    assert re.search(r"timeout\s+-\s+default", table)


def test_defaults_have_one_source(project):
    """The resolved default of every option is its declaration's, and the option groups other
    code builds directly (AndroidOptions, HeaderOptions, RemoteOptions) default to the same."""
    resolved = resolve_with_origins(Flags(), environ={}, cwd=project, require_target=False)
    context = DefaultContext(project.resolve(), None, "")
    by_name = {option.name: option for option in OPTIONS}
    for option in OPTIONS:
        assert resolved.origin(option) == "default"
        assert resolved.values[option] == option.default_for(context), option.name
    assert resolved.options.output_dir == project.resolve() / "tfbuild-out" / "default"
    assert resolved.options.jobs == max(1, os.cpu_count() or 1)
    for group, instance in ((AndroidOptions, AndroidOptions()), (HeaderOptions, HeaderOptions()),
                            (RemoteOptions, RemoteOptions())):
        for field in dataclasses.fields(group):
            if field.name in by_name:
                assert getattr(instance, field.name) == by_name[field.name].default, (group.__name__, field.name)
    assert all(field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
               for field in dataclasses.fields(BuildOptions)), "BuildOptions takes its defaults from OPTIONS"


@pytest.mark.parametrize("command", [
    ("build",), ("config", "show"), ("header",), ("analyze",), ("workspace",), ("linkflags",), ("verify",),
    ("report",), ("kernels",), ("edit",), ("check",), ("compat",), ("aar",), ("example",), ("toolchain", "build"),
], ids=" ".join)
def test_help_names_values_not_python_types(command, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    assert main([*command, "--help"]) == 0
    text = capsys.readouterr().out
    assert not re.search(r"<(?:list\[)?(?:str|path|Path|int|float|bool)\]?>", text), text


def test_help_shows_each_declared_default(capsys, monkeypatch):
    """The help's "(default: ...)" is the declaration's, not a second copy in the help text."""
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["build", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.replace("│", " ").split())
    shown = [option for option in OPTIONS if option.default_text]
    assert {option.name for option in shown} >= {"jobs", "output_dir", "size_profile", "default_ops", "java_package"}
    for option in shown:
        assert f"(default: {option.default_text}) (env:" in text, option.name
        assert "default:" not in option.help, f"{option.name}: the default is said once, by its declaration"


def test_every_command_that_takes_an_option_takes_it_as_declared(capsys, monkeypatch):
    """``build`` and ``config show`` take every option; the other commands the ones they need
    (the tree commands ``--source``): each with its declared flags, variables and file key."""
    takes = {
        ("build",): OPTIONS,
        ("config", "show"): OPTIONS,
        ("workspace",): [o for o in OPTIONS if o.name in ("sdk", "ndk", "api_level", "build_tools", "ndk_api_level",
                                                          "source")],
        ("linkflags",): [o for o in OPTIONS if o.name in ("target", "source")],
        ("header",): [o for o in OPTIONS if o.name in ("default_ops", "granularity", "source")],
        **{command: [o for o in OPTIONS if o.name == "source"] for command in (
            ("source",), ("kernels",), ("edit",), ("check",), ("protobuf", "rename"), ("compat",))},
    }
    monkeypatch.setenv("COLUMNS", "250")
    for command, options in takes.items():
        assert main([*command, "--help"]) == 0
        text = " ".join(capsys.readouterr().out.replace("│", " ").split())
        for option in options:
            flags = " ".join(option.cli_flags[0].split("/"))
            assert flags.split()[0] in text, (command, option.name)
            assert f"(env: {', '.join('$' + name for name in option.variables)})" in text, (command, option.name)
            if option.file_key is not None:
                assert f"(tfbuild.toml: {option.file_key})" in text, (command, option.name)


def test_header_reads_its_source_through_the_same_resolver(project, capsys, monkeypatch):
    """``header --source`` resolves as the build's: flag, $TFBUILD_SOURCE, then [build] source;
    a source that is not a tree is refused naming where it came from."""
    model = project / "ops.json"
    model.write_text(json.dumps([["Const", "ConstantOp"]]))
    (project / "tfbuild.toml").write_text('[build]\nsource = "from-file"\n')
    for args, env, where in (
        ([], None, f"{project / 'from-file'}"),
        ([], "from-env", f"{project / 'from-env'}"),
        (["--source", "from-flag"], "from-env", f"{project / 'from-flag'}"),
    ):
        if env is not None:
            monkeypatch.setenv("TFBUILD_SOURCE", env)
        assert main(["header", str(model), "-o", "h.h", *args]) != 0
        err = capsys.readouterr().err
        assert where in err, err


def test_a_command_reads_only_the_options_it_takes(project):
    """``tfbuild kernels`` takes --source alone: a bad build variable does not stop it."""
    environ = {"TFBUILD_JOBS": "lots", "TFBUILD_SOURCE": "tree"}
    resolved = resolve_with_origins(Flags.of([], takes=[SOURCE]), environ=environ, cwd=project)
    assert resolved.options.source == project.resolve() / "tree" and resolved.origin(SOURCE) == "$TFBUILD_SOURCE"
    assert resolved.origin(JOBS) == "default"
    with pytest.raises(ConfigError, match=r"\$TFBUILD_JOBS: expected a whole number"):
        resolve_with_origins(Flags(), environ=environ, cwd=project, require_target=False)


def test_the_tree_commands_read_source_as_the_build_does(project, capsys, monkeypatch):
    monkeypatch.setenv("TFBUILD_SOURCE", "from-env")
    assert main(["kernels", "Conv2D"]) != 0
    assert str(project / "from-env") in capsys.readouterr().err


def test_a_bad_value_names_the_layer_it_came_from(project, capsys, monkeypatch):
    assert main(["config", "show", "--jobs", "0"]) == 2  # the flag's own range: a usage error naming it
    assert "'--jobs'" in capsys.readouterr().err
    monkeypatch.setenv("TFBUILD_MOBILE_TYPES", "tiny")
    assert main(["config", "show"]) == 2
    assert "$TFBUILD_MOBILE_TYPES: unknown mobile types 'tiny'" in capsys.readouterr().err
    monkeypatch.delenv("TFBUILD_MOBILE_TYPES")
    (project / "tfbuild.toml").write_text('[header]\ngranularity = "kernels"\n')
    assert main(["config", "show"]) == 2
    assert "tfbuild.toml: [header] granularity: unknown header granularity 'kernels'" in capsys.readouterr().err


def test_jsonable_values_of_config_show_are_the_resolved_ones(project):
    resolved = resolve_with_origins(Flags.named(target="pi-armv7", jobs=4), environ={}, cwd=project)
    assert jsonable(resolved.values[OPTIONS[0]]) == "pi-armv7" and resolved.options.jobs == 4
    with pytest.raises(ValueError, match="not an option"):
        Flags.named(jbos=4)
