# -*- Python -*-
# Stand-in for TensorFlow's tensorflow.bzl in tfbuild's test trees: the macro
# names the BUILD files load, each reduced to a plain rule that works offline
# with Bazel 0.26 and later.

def if_android(a):
    return select({
        "//tensorflow:android": a,
        "//conditions:default": [],
    })

def tf_copts():
    return ["-DEIGEN_AVOID_STL_ARRAY", "-Wno-sign-compare", "-fno-exceptions"]

def tf_kernel_library(name, prefix = None, srcs = None, hdrs = None, deps = None, **kwargs):
    """A cc_library of the kernel files that start with `prefix`, as TensorFlow's macro."""
    srcs = list(srcs or [])
    hdrs = list(hdrs or [])
    if prefix:
        srcs += native.glob(
            [prefix + "*.cc"],
            exclude = [prefix + "*test*", prefix + "*.cu.cc", prefix + "*_gpu*"],
        )
        hdrs += native.glob([prefix + "*.h"], exclude = [prefix + "*test*", prefix + "*.cu.h"])
    native.cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        copts = tf_copts(),
        deps = deps or [],
        alwayslink = 1,
        **kwargs
    )
