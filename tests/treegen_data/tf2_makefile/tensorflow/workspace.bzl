# TensorFlow external dependencies that can be loaded in WORKSPACE files.
#
# Stand-in for tfbuild's test trees: the real function declares about a hundred
# external repositories; the test tree declares none, so it builds offline. The
# protobuf pin is TF 2.0.0's (a commit, not a release), which
# download_dependencies.sh reads.

# 310ba5ee72661c081129eb878c1bbcec936b20f0 is based on 3.8.0 with a fix for protobuf.bzl.
PROTOBUF_URLS = [
    "https://storage.googleapis.com/mirror.tensorflow.org/github.com/protocolbuffers/protobuf/archive/310ba5ee72661c081129eb878c1bbcec936b20f0.tar.gz",
    "https://github.com/protocolbuffers/protobuf/archive/310ba5ee72661c081129eb878c1bbcec936b20f0.tar.gz",
]
PROTOBUF_SHA256 = "b9e92f9af8819bbbc514e2902aec860415b70209f31dfc8c4fa72515a5df9d59"
PROTOBUF_STRIP_PREFIX = "protobuf-310ba5ee72661c081129eb878c1bbcec936b20f0"

def tf_workspace(path_prefix = "", tf_repo_name = ""):
    pass
