"""Model analysis without importing TensorFlow: the wheel's protos read by path, tfbuild's copy
of the kernel registry answering as TensorFlow's registry does, and the same output as before.

The CLI runs in a child process here, so that the test process's own TensorFlow import (the
generated models need it) says nothing about what the CLI imports. TensorFlow's registry is the
oracle for the kernel lookup rules, node by node.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from tfbuild.model.analysis import analyze_models
from tfbuild.model.header import render_header
from tfbuild.model.installed import installed_tensorflow
from tfbuild.model.kernel_match import parse_device_type
from tfbuild.model.kernel_registry import load_kernel_registry
from tfbuild.model.protos import ROOT_PROTO, ROOT_PROTOS, descriptor_set

pytestmark = pytest.mark.tensorflow

PROBE = """
import sys
from tfbuild.cli import main
code = main({argv!r})
loaded = sorted(name for name in sys.modules if name == "tensorflow" or name.startswith("tensorflow."))
print(json.dumps({{"code": code, "tensorflow_modules": loaded}}), file=sys.stderr)
"""

EVERY_FORMAT = [
    "cnn_pb", "cnn_pbtxt", "loop_pb", "keras_saved_model", "saved_model_text", "bare_saved_model_proto",
    "meta", "meta_text", "tflite", "tflite_custom", "ops_list", "problems_pbtxt", "pb_named_txt",
]


def run_cli(argv: list[str]) -> tuple[int, list[str], str]:
    """``tfbuild ARGV`` in a fresh Python: its exit code, the tensorflow modules it imported, stdout."""
    probe = "import json\n" + PROBE.format(argv=argv)
    child = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    report = json.loads(child.stderr.strip().splitlines()[-1])
    return report["code"], report["tensorflow_modules"], child.stdout


def test_warm_header_imports_no_tensorflow_and_writes_the_same_header(models, tmp_path):
    files = [getattr(models, name) for name in EVERY_FORMAT]
    out = tmp_path / "ops_to_register.h"
    argv = ["header", *map(str, files), "-o", str(out)]
    run_cli(argv)  # builds tfbuild's caches if no earlier test did
    code, tensorflow_modules, _ = run_cli(argv)
    assert code == 0 and tensorflow_modules == []
    assert out.read_text() == render_header(analyze_models(files))  # the in-process result, TF loaded


def test_warm_analyze_json_imports_no_tensorflow_and_matches(models):
    files = [getattr(models, name) for name in EVERY_FORMAT]
    code, tensorflow_modules, stdout = run_cli(["analyze", "--json", *map(str, files)])
    assert code == 0 and tensorflow_modules == []
    assert json.loads(stdout) == analyze_models(files).to_dict()


def test_scoped_analysis_imports_no_tensorflow(models):
    code, tensorflow_modules, stdout = run_cli(["analyze", "--json", "--signature", "serving_default",
                                                str(models.keras_saved_model)])
    assert code == 0 and tensorflow_modules == []
    assert json.loads(stdout)["models"][0]["scope"] == "signature serving_default of MetaGraph [serve]"


# --- the kernel lookup, against TensorFlow's ---------------------------------------------------

def _tf_class(node_def) -> str | None:
    from tensorflow.python.util import _pywrap_kernel_registry

    found = _pywrap_kernel_registry.TryFindKernelClass(node_def.SerializeToString())
    return found.decode("utf-8") if found else None


def test_registry_names_a_class_for_every_registration():
    registry = load_kernel_registry()
    registrations = [r for op in registry.ops_with_kernels() for r in registry.registrations(op)]
    assert len(registrations) > 5000
    # Only a registration no NodeDef can single out goes without a class (it is never chosen).
    unnamed = [r for r in registrations if r.kernel_class is None]
    assert len(unnamed) <= len(registrations) // 1000, unnamed[:5]
    assert registry.tensorflow_version == __import__("tensorflow").__version__


ODD_DEVICES = [
    "", "/", "/cpu:0", "/CPU:0", "/Cpu:0", "/device:CPU:0", "/device:cpu:0", "/device:CPU", "/device:CPU:*",
    "/device:*:0", "/job:localhost/replica:0/task:0/device:CPU:0", "/job:*/replica:*/task:*/device:CPU:*",
    "cpu:0", "/job:1a/cpu:0", "/job:a-b/cpu:0", "/device:9CPU:0", "/cpu:18446744073709551615",
    "/cpu:18446744073709551616", "/device:GPU:0/cpu:0", "/gpu:0/device:CPU:0", "/device:CPU:0/task:1",
    "/device:CP_U:0", "/device:CPU:0x", "/task:/cpu:0", "/device:XLA_CPU_JIT:0/cpu:0", "/cpu:0/",
    "/device:cpü:0", "/device:CPU:0:1",
]


@pytest.mark.parametrize("device", ODD_DEVICES)
def test_device_names_parse_as_tensorflow_parses_them(device):
    from tensorflow.core.framework import node_def_pb2

    registry = load_kernel_registry()
    for op, attrs in (("NoOp", {}), ("Identity", {"T": 1}), ("Identity", {"T": 20}), ("_Recv", {"tensor_type": 1})):
        node = node_def_pb2.NodeDef(name="n", op=op, device=device)
        for name, dtype in attrs.items():
            node.attr[name].type = dtype
        assert registry.kernel_class(node, device) == _tf_class(node), (op, device, parse_device_type(device))


def _random_node(rng: random.Random, op: str, registrations, node_def_class):
    """A NodeDef of ``op`` whose constrained attrs take allowed values, values no registration
    allows, values of the wrong kind, lists, placeholders, or are missing."""
    node = node_def_class(name="n", op=op)
    allowed: dict[str, dict[str, set]] = {}
    for registration in registrations:
        for constraint in registration.constraints:
            allowed.setdefault(constraint.attr, {}).setdefault(constraint.kind, set()).update(constraint.allowed)
    for attr, kinds in allowed.items():
        roll = rng.random()
        if roll < 0.08:
            continue  # missing: the op's default applies, if it has one
        kind = rng.choice(sorted(kinds))
        _RANDOM_VALUE[kind](rng, roll, sorted(kinds[kind]), node.attr[attr])
    labels = sorted({r.label for r in registrations} - {""})
    if labels and rng.random() < 0.6:
        node.attr["_kernel"].s = rng.choice(labels).encode()
    return node


def _random_type(rng, roll, values, value) -> None:
    if roll < 0.15:
        value.list.type.extend(rng.sample(values, min(len(values), 2)))
    elif roll < 0.18:
        value.list.SetInParent()  # an empty list
    elif roll < 0.21:
        value.placeholder = "T"
    elif roll < 0.26:
        value.type = rng.choice([0, 1, 3, 7, 20, 21, 101, 999])
    elif roll < 0.29:
        value.i = 3  # not a type at all
    else:
        value.type = rng.choice(values)


def _random_string(rng, roll, values, value) -> None:
    value.s = rng.choice([*values, b"not-allowed"])


def _random_int(rng, roll, values, value) -> None:
    if roll < 0.2:
        value.list.i.append(1)
    else:
        value.i = rng.choice([*values, 12345])


def _random_bool(rng, roll, values, value) -> None:
    value.b = roll < 0.55


_RANDOM_VALUE = {"type": _random_type, "s": _random_string, "i": _random_int, "b": _random_bool}


def test_kernel_classes_are_tensorflows_for_varied_nodes_of_every_op():
    """For every op with CPU kernels, nodes with valid, invalid, missing and oddly typed attrs,
    on several device spellings: tfbuild's answer is TryFindKernelClass's."""
    from tensorflow.core.framework import node_def_pb2

    registry = load_kernel_registry()
    rng = random.Random(12)
    devices = ["/cpu:0", "/device:CPU:0", "/device:cpu:0", "/job:w/replica:0/task:0/device:CPU:0"]
    checked, wrong = 0, []
    for op in registry.ops_with_kernels():
        registrations = registry.registrations(op)
        for _ in range(6):
            node = _random_node(rng, op, registrations, node_def_pb2.NodeDef)
            node.device = rng.choice(devices)
            expected, found = _tf_class(node), registry.kernel_class(node, node.device)
            checked += 1
            if expected != found:
                wrong.append((str(node), expected, found))
    assert checked > 5000
    assert wrong == []


def test_parse_device_type_reads_legacy_and_full_names():
    assert parse_device_type("/cpu:0") == "CPU"
    assert parse_device_type("/job:localhost/replica:0/task:0/device:CPU:0") == "CPU"
    assert parse_device_type("/device:cpu:0") == "cpu"
    assert parse_device_type("") == ""
    assert parse_device_type("cpu:0") is None
    assert parse_device_type("/cpu:18446744073709551616") is None  # uint64 overflow, as in C++


# --- the wheel's protos --------------------------------------------------------------------

def test_descriptor_set_is_read_from_the_wheel_and_cached_by_version(tmp_path):
    from google.protobuf import descriptor_pb2

    tensorflow = installed_tensorflow()
    data = descriptor_set(tensorflow, tmp_path)
    files = [f.name for f in descriptor_pb2.FileDescriptorSet.FromString(data).file]
    assert files[-1] == ROOT_PROTOS[-1] and ROOT_PROTO in files and "tensorflow/core/framework/graph.proto" in files
    assert files.index("tensorflow/core/framework/attr_value.proto") < files.index("tensorflow/core/framework/node_def.proto")
    (cached,) = (tmp_path / "tensorflow-protos").iterdir()
    assert cached.name.startswith(f"{tensorflow.version}-") and cached.read_bytes() == data
    cached.write_bytes(b"\xff not a descriptor set")  # a corrupt cache is rebuilt, not trusted
    assert descriptor_set(tensorflow, tmp_path) == data == cached.read_bytes()


def test_private_message_classes_parse_what_tensorflow_parses(models):
    """In a process without TensorFlow the classes come from tfbuild's own pool; they read the
    same messages TensorFlow's classes do."""
    script = (
        "import sys\n"
        "from tfbuild.model.formats import load_model\n"
        f"model = load_model({str(models.keras_saved_model)!r})\n"
        "sys.stdout.buffer.write(model.graph_defs[0].SerializeToString(deterministic=True))\n"
        "assert 'tensorflow' not in sys.modules\n"
    )
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)
    from tensorflow.core.protobuf import saved_model_pb2

    expected = saved_model_pb2.SavedModel.FromString((models.keras_saved_model / "saved_model.pb").read_bytes())
    assert child.stdout == expected.meta_graphs[0].graph_def.SerializeToString(deterministic=True)


def test_unloadable_op_library_is_named(tmp_path):
    from tfbuild.errors import InputFileError

    library = tmp_path / "libbroken_ops.so"
    library.write_bytes(b"not an ELF file")
    with pytest.raises(InputFileError, match="libbroken_ops.so: cannot load op library"):
        load_kernel_registry([library], cache_root=tmp_path / "cache")
