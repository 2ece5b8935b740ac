# TensorFlow external dependencies that can be loaded in WORKSPACE files.
#
# Stand-in for tfbuild's test trees: the real function declares about a hundred
# external repositories; the test tree declares none, so it builds offline. The
# protobuf pin is TF 1.12's, which download_dependencies.sh reads (the stand-in's
# protobuf is shaped like that release: see download_dependencies.sh).

PROTOBUF_URLS = [
    "https://mirror.bazel.build/github.com/google/protobuf/archive/v3.6.1.2.tar.gz",
    "https://github.com/google/protobuf/archive/v3.6.1.2.tar.gz",
]
PROTOBUF_SHA256 = "2244b0308846bb22b4ff0bcc675e99290ff9f1115553ae9671eba1030af31bc0"
PROTOBUF_STRIP_PREFIX = "protobuf-3.6.1.2"

def tf_workspace(path_prefix = "", tf_repo_name = ""):
    pass
