# TensorFlow external dependencies that can be loaded in WORKSPACE files.
#
# Stand-in for tfbuild's test trees: the real function declares about a hundred
# external repositories; the test tree needs none, so it builds offline.

def tf_workspace(path_prefix = "", tf_repo_name = ""):
    pass
