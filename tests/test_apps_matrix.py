"""Many apps in one tfbuild.toml: ``[apps.NAME]`` tables, the app x target matrix CI systems
consume (``tfbuild plan --json`` for GitHub Actions, ``--gitlab`` for GitLab's parallel:matrix),
``tfbuild build --app NAME --target T`` for one cell, and the example pipelines of
``examples/ci/`` validated by a real linter (check-jsonschema's vendored GitHub workflow and
GitLab CI schemas)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tfbuild.cli import main
from tfbuild.errors import ConfigError
from tfbuild.pipeline.declarations.options import Flags, resolve_with_origins

REPO = Path(__file__).resolve().parent.parent
CI = REPO / "examples" / "ci"
LINTER = [sys.executable, "-m", "check_jsonschema"]


def test_plan_prints_the_matrix_for_github_and_gitlab(capsys, monkeypatch):
    monkeypatch.delenv("TFBUILD_CONFIG", raising=False)
    assert main(["plan", "--config", str(CI / "tfbuild.toml"), "--json"]) == 0
    matrix = json.loads(capsys.readouterr().out)
    assert matrix["include"] == [
        {"app": "camera", "target": "android-arm64", "out": "tfbuild-out/camera/android-arm64"},
        {"app": "camera", "target": "android-armv7", "out": "tfbuild-out/camera/android-armv7"},
        {"app": "translate", "target": "android-arm64", "out": "tfbuild-out/translate/android-arm64"},
        {"app": "translate", "target": "linux-x86_64", "out": "tfbuild-out/translate/linux-x86_64"},
    ]
    assert main(["plan", "--config", str(CI / "tfbuild.toml"), "--gitlab"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"APP": ["camera"], "TARGET": ["android-arm64", "android-armv7"]},
        {"APP": ["translate"], "TARGET": ["android-arm64", "linux-x86_64"]},
    ]


def test_an_app_overrides_the_build_table_for_its_cell(monkeypatch):
    for name in ("TFBUILD_SIZE_PROFILE", "TFBUILD_MODELS", "TFBUILD_OUT", "TFBUILD_APP"):
        monkeypatch.delenv(name, raising=False)
    resolved = resolve_with_origins(Flags.named(app="translate", target="linux-x86_64"), environ={}, cwd=CI,
                                    config_file=CI / "tfbuild.toml")
    options, origins = resolved.options, resolved.origins
    assert options.app == "translate" and options.models == (CI / "models/translate.pb",)
    assert options.op_sources == (CI / "ops/beam_search.cc",) and options.size_profile == "balanced"
    assert origins["size_profile"] == f"{CI / 'tfbuild.toml'}: [apps.translate] size_profile"
    assert options.source == (CI / "../../tensorflow").resolve() or options.source == CI / "../../tensorflow"
    assert options.output_dir == CI / "tfbuild-out" / "translate" / "linux-x86_64"
    camera = resolve_with_origins(Flags.named(app="camera", target="android-arm64"), environ={}, cwd=CI,
                                  config_file=CI / "tfbuild.toml").options
    assert camera.size_profile == "small" and len(camera.models) == 2 and camera.op_sources == ()


@pytest.mark.parametrize(("cli", "message"), [
    ({"app": "camera", "target": "linux-x86_64"}, "app camera ships android-arm64, android-armv7, not linux-x86_64"),
    ({"app": "radio", "target": "linux-x86_64"}, "no [apps.radio] (apps: camera, translate)"),
])
def test_a_cell_the_file_does_not_declare_is_one_line(cli, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        resolve_with_origins(Flags.named(**cli), environ={}, cwd=CI, config_file=CI / "tfbuild.toml")


def test_an_app_without_a_config_file_is_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"app 'camera': no tfbuild.toml to read \[apps.camera\] from"):
        resolve_with_origins(Flags.named(app="camera", target="linux-x86_64"), environ={}, cwd=tmp_path)


def test_one_cell_builds_with_its_apps_models(tf1_tree, tmp_path, capsys, monkeypatch):
    """``tfbuild build --app a --target linux-x86_64`` plans with app a's model, not app b's."""
    (tmp_path / "a.json").write_text(json.dumps([["Const", "ConstantOp"]]))
    (tmp_path / "b.json").write_text(json.dumps([["Identity", "IdentityOp"]]))
    config = tmp_path / "tfbuild.toml"
    config.write_text(f'[build]\nsource = "{tf1_tree}"\nflavour = "makefile"\nlocal = true\n'
                      '[apps.a]\nmodels = ["a.json"]\ntargets = ["linux-x86_64"]\n'
                      '[apps.b]\nmodels = ["b.json"]\ntargets = ["linux-x86_64", "pi-armv7"]\n')
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--app", "a", "--target", "linux-x86_64", "--dry-run", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert '"ConstantOp"' in document["header"] and "IdentityOp" not in document["header"]
    assert document["plan"]["output_dir"] == str(tmp_path / "tfbuild-out" / "a" / "linux-x86_64")


@pytest.mark.parametrize(("schema", "path"), [
    ("vendor.github-workflows", CI / "github-actions.yml"),
    ("vendor.gitlab-ci", CI / "gitlab-ci.yml"),
])
def test_the_example_pipelines_pass_the_linter(schema, path):
    done = subprocess.run([*LINTER, "--builtin-schema", schema, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_child_pipeline_the_gitlab_example_writes_passes_the_linter(tmp_path, capsys):
    """The plan job's script, run here: its child.yml (the matrix inside a build job) is valid."""
    script = (CI / "gitlab-ci.yml").read_text()
    program = script.split("python3 - <<'PY'\n", 1)[1].split("      PY\n", 1)[0]
    assert main(["plan", "--config", str(CI / "tfbuild.toml"), "--gitlab"]) == 0
    (tmp_path / "matrix.json").write_text(capsys.readouterr().out)
    subprocess.run([sys.executable, "-c", "\n".join(line[6:] for line in program.splitlines())], cwd=tmp_path,
                   check=True)
    child = json.loads((tmp_path / "child.yml").read_text())
    assert child["build"]["parallel"]["matrix"][0] == {"APP": ["camera"], "TARGET": ["android-arm64", "android-armv7"]}
    done = subprocess.run([*LINTER, "--builtin-schema", "vendor.gitlab-ci", str(tmp_path / "child.yml")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    bad = tmp_path / "bad.yml"
    bad.write_text(json.dumps({"build": {"parallel": {"matrix": "camera"}, "script": ["x"]}}))
    refused = subprocess.run([*LINTER, "--builtin-schema", "vendor.gitlab-ci", str(bad)], capture_output=True, text=True)
    assert refused.returncode != 0  # the linter does refuse a malformed matrix
