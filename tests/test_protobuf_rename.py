"""The google::protobuf -> google::protobuf3 rename of a Makefile-flavour tree (rename_protobuf.sh)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing_part

from tfbuild.errors import SourceTreeError
from tfbuild.fileio import sha256_tree
from tfbuild.tree.protobuf_rename import (
    MAKEFILE,
    PROTOBUF_SRC,
    apply_protobuf_rename,
    plan_protobuf_rename,
    rename_cpp,
    rename_generated,
)

# The Makefile rules rename_protobuf.sh edits, as in TF 1.12's contrib Makefile.
MAKEFILE_TEXT = """\
# Builds C++ code from proto files using protoc.
$(PROTOGENDIR)%.pb.cc $(PROTOGENDIR)%.pb.h: %.proto
\t@mkdir -p $(dir $@)
\t$(PROTOC) $(PROTOCFLAGS) $< --cpp_out $(PROTOGENDIR)

# Uses proto_text to generate minimal pb_text C++ files from protos.
$(PBTGENDIR)%.pb_text.cc $(PBTGENDIR)%.pb_text.h $(PBTGENDIR)%.pb_text-impl.h: %.proto | $(PROTO_TEXT)
\t@mkdir -p $(dir $@)
\t$(PROTO_TEXT) \\
\t$(PBTGENDIR)tensorflow/core \\
\ttensorflow/core/ \\
\ttensorflow/tools/proto_text/placeholder.txt \\
\t$<

# Compiles the C++ source files from protos using protoc.
$(HOST_GENDIR)%.pb.cc $(HOST_GENDIR)%.pb.h: %.proto
\t@mkdir -p $(dir $@)
\t$(PROTOC) $(PROTOCFLAGS) $< --cpp_out $(HOST_GENDIR)
"""

MESSAGE_H = """\
#ifndef GOOGLE_PROTOBUF_MESSAGE_H__
#define GOOGLE_PROTOBUF_MESSAGE_H__
#include <string>
#include <google/protobuf/stubs/common.h>
namespace google {
namespace protobuf {
class Message {
 public:
  virtual ~Message();
  virtual std::string Describe() const;
};
std::string Version();
}  // namespace protobuf
}  // namespace google
#endif
"""

COMMON_H = """\
#ifndef GOOGLE_PROTOBUF_STUBS_COMMON_H__
#define GOOGLE_PROTOBUF_STUBS_COMMON_H__
#define GOOGLE_PROTOBUF_VERSION 3006001
#endif
"""

MESSAGE_CC = """\
#include "google/protobuf/message.h"
namespace google {
namespace protobuf {
Message::~Message() {}
std::string Message::Describe() const { return "message of " + Version(); }
std::string Version() { return VERSION_TEXT; }
}  // namespace protobuf
}  // namespace google
"""

TF_PROTOBUF_H = """\
#ifndef TENSORFLOW_CORE_PLATFORM_DEFAULT_PROTOBUF_H_
#define TENSORFLOW_CORE_PLATFORM_DEFAULT_PROTOBUF_H_
#include "google/protobuf/message.h"
namespace tensorflow {
namespace protobuf = ::google::protobuf;
}  // namespace tensorflow
#endif
"""

TF_SIDE_CC = """\
#include "tensorflow/core/platform/default/protobuf.h"
std::string TensorflowSide() {
  tensorflow::protobuf::Message message;
  return "tensorflow uses " + tensorflow::protobuf::Version() + ", " + message.Describe();
}
"""

APP_MAIN_CC = """\
#include <iostream>
#include "google/protobuf/message.h"
std::string TensorflowSide();
int main() {
  std::cout << "app uses " << google::protobuf::Version() << "\\n" << TensorflowSide() << "\\n";
}
"""

TENSOR_PROTO = """\
syntax = "proto3";
package tensorflow;
import "google/protobuf/any.proto";
message Holder { google.protobuf.Any payload = 1; }
"""


def make_tree(root: Path) -> Path:
    files = {
        MAKEFILE: MAKEFILE_TEXT,
        f"{PROTOBUF_SRC}/google/protobuf/message.h": MESSAGE_H,
        f"{PROTOBUF_SRC}/google/protobuf/message.cc": MESSAGE_CC,
        f"{PROTOBUF_SRC}/google/protobuf/stubs/common.h": COMMON_H,
        f"{PROTOBUF_SRC}/google/protobuf/any.proto": 'syntax = "proto3";\npackage google.protobuf;\nmessage Any {}\n',
        f"{PROTOBUF_SRC}/Makefile.am": "nobase_include_HEADERS = google/protobuf/message.h google/protobuf/stubs/common.h\n",
        "tensorflow/contrib/makefile/downloads/protobuf/configure.ac": "AC_CONFIG_SRCDIR(src/google/protobuf/message.cc)\n",
        "tensorflow/contrib/makefile/downloads/protobuf/autogen.sh": "test -e src/google/protobuf/stubs/common.h || exit 1\n",
        "tensorflow/core/platform/default/protobuf.h": TF_PROTOBUF_H,
        "tensorflow/core/tf_side.cc": TF_SIDE_CC,
        "tensorflow/core/framework/holder.proto": TENSOR_PROTO,
        "tensorflow/core/README.md": "google::protobuf is mentioned here but this is not C++\n",
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_cpp_rename_is_whole_word_and_leaves_macros_and_proto_names():
    text = (
        '#include <google/protobuf/message.h>\n'
        'namespace protobuf_google_2fprotobuf_2fany_2eproto { void Init(); }\n'
        'using namespace ::google::protobuf;\n'
        'const char* k = "type.googleapis.com/google.protobuf.Any";  // GOOGLE_PROTOBUF_VERSION\n'
        'myprotobuf::X x; protobuf::Y y;\n'
    )
    renamed, changes = rename_cpp(text)
    assert renamed == (
        '#include <google/protobuf3/message.h>\n'
        'namespace protobuf_google_2fprotobuf_2fany_2eproto { void Init(); }\n'
        'using namespace ::google::protobuf3;\n'
        'const char* k = "type.googleapis.com/google.protobuf.Any";  // GOOGLE_PROTOBUF_VERSION\n'
        'myprotobuf::X x; protobuf3::Y y;\n'
    )
    assert changes == 3
    assert rename_cpp(renamed) == (renamed, 0)


def test_what_protobufs_own_generators_print_is_renamed_too():
    """Found on a real TF 1.9 tree's protobuf (3.5.0): protoc's C++ generator prints the
    namespace after a \\n escape (cpp_file.cc), and the JS embedder prints an include as an
    escaped literal (js/embed.cc). Missed, protoc would not build, or every .pb.h would open
    ``namespace protobuf`` around code that names protobuf3 types."""
    text = (
        'printer->Print("namespace google {\\nnamespace protobuf {\\n");\n'
        'std::cout << "#include \\"google/protobuf/compiler/js/well_known_types_embed.h\\"\\n";\n'
        'printer->Print("}  // namespace protobuf\\n\\tprotobuf::Arena* a;\\n");\n'
        'const char* not_a_header = "\\"google/protobuf/any.proto\\"";\n'
    )
    renamed, changes = rename_cpp(text)
    assert renamed == (
        'printer->Print("namespace google {\\nnamespace protobuf3 {\\n");\n'
        'std::cout << "#include \\"google/protobuf3/compiler/js/well_known_types_embed.h\\"\\n";\n'
        'printer->Print("}  // namespace protobuf3\\n\\tprotobuf3::Arena* a;\\n");\n'
        'const char* not_a_header = "\\"google/protobuf/any.proto\\"";\n'
    )
    assert changes == 4
    assert rename_cpp(renamed) == (renamed, 0)


def test_plan_then_apply_renames_the_tree_and_a_second_run_does_nothing(tmp_path):
    root = make_tree(tmp_path)
    before = sha256_tree(root)
    plan = plan_protobuf_rename(root)
    assert sha256_tree(root) == before, "planning must not touch the tree"
    assert plan.move == (f"{PROTOBUF_SRC}/google/protobuf", f"{PROTOBUF_SRC}/google/protobuf3")
    assert {r.path for r in plan.rewrites} == {
        f"{PROTOBUF_SRC}/google/protobuf3/message.h",
        f"{PROTOBUF_SRC}/google/protobuf3/message.cc",
        f"{PROTOBUF_SRC}/Makefile.am",
        "tensorflow/contrib/makefile/downloads/protobuf/configure.ac",
        "tensorflow/contrib/makefile/downloads/protobuf/autogen.sh",
        "tensorflow/core/platform/default/protobuf.h",
        "tensorflow/core/tf_side.cc",
        MAKEFILE,
    }

    apply_protobuf_rename(plan)
    assert not (root / PROTOBUF_SRC / "google/protobuf").exists()
    assert "namespace protobuf3 = ::google::protobuf3;" in (root / "tensorflow/core/platform/default/protobuf.h").read_text()
    # protoc finds protobuf's protos, unchanged, where TF's imports name them; the library
    # registers them under the same names, so file-level reflection on TF's protos works.
    assert (root / "google/protobuf/any.proto").read_text() == (root / PROTOBUF_SRC / "google/protobuf3/any.proto").read_text()
    assert 'import "google/protobuf/any.proto";' in (root / "tensorflow/core/framework/holder.proto").read_text()
    assert not (root / "google/protobuf/message.h").exists() and not (root / "google/protobuf3").exists()
    assert "src/google/protobuf3/message.cc" in (root / "tensorflow/contrib/makefile/downloads/protobuf/configure.ac").read_text()
    assert (root / MAKEFILE).read_text().count("sed -i") == 3
    assert "google::protobuf is mentioned" in (root / "tensorflow/core/README.md").read_text()

    after = sha256_tree(root)
    again = plan_protobuf_rename(root)
    assert not again.changed, again.summary_lines()
    apply_protobuf_rename(again)
    assert sha256_tree(root) == after


def test_protobufs_own_protos_import_the_moved_paths_and_the_root_copies_stay_as_released(tmp_path):
    """Found on a real TF 1.9 tree (protobuf 3.5.0): protobuf's own `make` runs protoc on its
    test protos as google/protobuf3/any_test.proto etc. with -I src (src/Makefile.am,
    unittest_proto_middleman, part of BUILT_SOURCES). With their imports left as
    google/protobuf/..., protoc stops at "google/protobuf/any.proto: File not found". TF's
    protos and the root copies keep the released imports."""
    root = make_tree(tmp_path)
    any_test = (
        'syntax = "proto3";\npackage protobuf_unittest;\n'
        'import "google/protobuf/any.proto";\n  import public "google/protobuf/unittest_import.proto";\n'
        'message TestAny { google.protobuf.Any any_value = 2; }  // see google/protobuf/any.proto\n'
    )
    src = root / PROTOBUF_SRC / "google/protobuf"
    (src / "any_test.proto").write_text(any_test)
    (src / "unittest_import.proto").write_text('syntax = "proto2";\npackage protobuf_unittest_import;\n')
    apply_protobuf_rename(plan_protobuf_rename(root))

    moved = root / PROTOBUF_SRC / "google/protobuf3"
    assert (moved / "any_test.proto").read_text() == any_test.replace(
        'import "google/protobuf/', 'import "google/protobuf3/').replace(
        'import public "google/protobuf/', 'import public "google/protobuf3/')
    assert (root / "google/protobuf/any_test.proto").read_text() == any_test
    assert 'import "google/protobuf/any.proto";' in (root / "tensorflow/core/framework/holder.proto").read_text()
    assert not plan_protobuf_rename(root).changed

    (root / "google/protobuf/any_test.proto").write_text("stale\n")  # a stale copy is replaced by the released text
    plan = plan_protobuf_rename(root)
    assert plan.copies == ((f"{PROTOBUF_SRC}/google/protobuf3/any_test.proto", "google/protobuf/any_test.proto"),)
    apply_protobuf_rename(plan)
    assert (root / "google/protobuf/any_test.proto").read_text() == any_test


def test_interrupted_rename_is_finished_by_the_next_run(tmp_path):
    root = make_tree(tmp_path)
    plan = plan_protobuf_rename(root)
    (root / plan.move[0]).rename(root / plan.move[1])  # only the move happened
    rest = plan_protobuf_rename(root)
    assert rest.move is None and rest.rewrites
    apply_protobuf_rename(rest)
    assert not plan_protobuf_rename(root).changed


def test_makefile_fixup_line_does_what_rename_generated_does(tmp_path):
    if shutil.which("sed") is None:
        missing_part("sed not installed")
    root = make_tree(tmp_path)
    apply_protobuf_rename(plan_protobuf_rename(root))
    recipe = next(line for line in (root / MAKEFILE).read_text().splitlines() if "sed -i" in line)
    generated = (
        '#include <google/protobuf/generated_message_util.h>\n'
        '#include "google/protobuf3/any.pb.h"\n'
        "void AddDescriptors() { ::protobuf_google_2fprotobuf3_2fany_2eproto::AddDescriptors(); }\n"
        "::google::protobuf::Message* m; ::google::protobuf::internal::ExplicitlyConstructed<int> e;\n"
        "namespace google {\nnamespace protobuf {\ntemplate<> Holder* Arena::CreateMaybeMessage<Holder>(Arena*);\n}\n}\n"
    )
    sample = tmp_path / "holder.pb.cc"
    sample.write_text(generated)
    argv = shlex.split(recipe.strip())
    argv = [a for a in argv if "$(" not in a] + [str(sample)]
    subprocess.run(argv, check=True)
    assert sample.read_text() == rename_generated(generated)
    assert "protobuf_google_2fprotobuf_2fany_2eproto" in sample.read_text()
    assert "::google::protobuf3::internal::" in sample.read_text()
    assert "namespace protobuf3 {" in sample.read_text()


@pytest.mark.parametrize(
    "damage, expected",
    [
        (lambda root: (root / MAKEFILE).unlink(), "contrib Makefile"),
        (lambda root: shutil.rmtree(root / PROTOBUF_SRC / "google"), "download_dependencies.sh"),
        (lambda root: (root / PROTOBUF_SRC / "google/protobuf3").mkdir(), "both"),
    ],
)
def test_trees_it_cannot_rename_are_refused(tmp_path, damage, expected):
    root = make_tree(tmp_path)
    damage(root)
    with pytest.raises(SourceTreeError) as caught:
        plan_protobuf_rename(root)
    assert expected in caught.value.one_line()


def _compile(cxx: str, source: Path, out: Path, *includes: Path, define: str = "") -> None:
    argv = [cxx, "-std=c++11", "-c", str(source), "-o", str(out)]
    argv += [f"-I{d}" for d in includes] + ([f"-D{define}"] if define else [])
    subprocess.run(argv, check=True, capture_output=True, text=True)


@pytest.mark.compiler
def test_renamed_protobuf_links_next_to_an_apps_own_protobuf(tmp_path):
    """An app's protobuf and TensorFlow's renamed one link into one program and both run;
    without the rename the same link fails with duplicate google::protobuf symbols."""
    cxx = shutil.which("g++")
    app = tmp_path / "app"  # the app's own protobuf ("protobuf 2"), never renamed
    for relative, text in {"google/protobuf/message.h": MESSAGE_H, "google/protobuf/stubs/common.h": COMMON_H,
                           "google/protobuf/message.cc": MESSAGE_CC, "main.cc": APP_MAIN_CC}.items():
        (app / relative).parent.mkdir(parents=True, exist_ok=True)
        (app / relative).write_text(text)
    tree = make_tree(tmp_path / "tree")
    unrenamed = tmp_path / "unrenamed"
    shutil.copytree(tree, unrenamed)
    apply_protobuf_rename(plan_protobuf_rename(tree))

    objects = tmp_path / "obj"
    objects.mkdir()
    _compile(cxx, app / "google/protobuf/message.cc", objects / "app_pb.o", app, define='VERSION_TEXT="protobuf-2"')
    _compile(cxx, app / "main.cc", objects / "main.o", app)

    def tensorflow_objects(root: Path, tag: str) -> list[str]:
        src = root / PROTOBUF_SRC
        namespace_dir = "protobuf3" if (src / "google/protobuf3").exists() else "protobuf"
        _compile(cxx, src / f"google/{namespace_dir}/message.cc", objects / f"{tag}_pb.o", src,
                 define='VERSION_TEXT="protobuf-3"')
        _compile(cxx, root / "tensorflow/core/tf_side.cc", objects / f"{tag}_tf.o", root, src)
        return [str(objects / f"{tag}_pb.o"), str(objects / f"{tag}_tf.o")]

    program = tmp_path / "program"
    common = [str(objects / "main.o"), str(objects / "app_pb.o")]
    linked = subprocess.run([cxx, *common, *tensorflow_objects(tree, "renamed"), "-o", str(program)],
                            capture_output=True, text=True)
    assert linked.returncode == 0, linked.stderr
    run = subprocess.run([str(program)], capture_output=True, text=True, check=True)
    assert run.stdout == "app uses protobuf-2\ntensorflow uses protobuf-3, message of protobuf-3\n"

    clash = subprocess.run([cxx, *common, *tensorflow_objects(unrenamed, "plain"), "-o", str(tmp_path / "clash")],
                           capture_output=True, text=True)
    assert clash.returncode != 0 and "multiple definition" in clash.stderr


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def test_in_a_git_checkout_tracked_rewrites_are_committed_on_the_work_branch(tmp_path, monkeypatch):
    """TensorFlow's own files are tracked, the downloads are ignored: the rename leaves the tree
    clean (so the next `tfbuild edit` is allowed) and `--revert` takes the tracked part back."""
    from tfbuild.tree.work_branch import WORK_BRANCH, revert

    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    root = make_tree(tmp_path / "tree")
    (root / ".gitignore").write_text("/tensorflow/contrib/makefile/downloads/\n/google/\n")
    _git(root, "init", "-q", "-b", "master")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tree")
    tracked_before = (root / "tensorflow/core/tf_side.cc").read_text()

    apply_protobuf_rename(plan_protobuf_rename(root))
    assert _git(root, "rev-parse", "--abbrev-ref", "HEAD") == WORK_BRANCH
    assert _git(root, "status", "--porcelain") == ""
    committed = set(_git(root, "show", "--name-only", "--format=", "HEAD").splitlines())
    assert committed == {MAKEFILE, "tensorflow/core/tf_side.cc", "tensorflow/core/platform/default/protobuf.h"}
    assert not plan_protobuf_rename(root).changed
    assert (root / "google/protobuf/any.proto").is_file()

    revert(root)
    assert (root / "tensorflow/core/tf_side.cc").read_text() == tracked_before
    assert not (root / "google").exists(), "the revert removes the root copies it recorded, and their directories"
    assert (root / PROTOBUF_SRC / "google/protobuf3").is_dir()  # untracked download: stays renamed


def test_a_dirty_checkout_is_refused_before_anything_changes(tmp_path):
    root = make_tree(tmp_path / "tree")
    _git(root, "init", "-q", "-b", "master")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "tree")
    (root / "tensorflow/core/README.md").write_text("local edit\n")

    def files() -> dict[str, bytes]:  # git may refresh .git/index; the work tree must not change
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
                if p.is_file() and ".git" not in p.relative_to(root).parts}

    before = files()
    with pytest.raises(SourceTreeError, match="uncommitted"):
        apply_protobuf_rename(plan_protobuf_rename(root))
    assert files() == before
