"""Names an Android build's artifacts share with the app that uses them, and their checks.

The JNI library's native methods are named after the Java class that declares them
(``Java_<package>_<Class>_<method>``, JNI's mangling), so the package chosen when the library is
built must be the one the AAR's ``classes.jar`` declares; the library's name is what
``System.loadLibrary`` loads. Both are options of the build (``[android] java_package``,
``jni_library``), recorded in its manifest, and read back by ``tfbuild aar``. This module is
light on purpose: the option parser imports it.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from tfbuild.errors import ConfigError

DEFAULT_JAVA_PACKAGE = "org.tensorflow.tfbuild"
DEFAULT_JNI_LIBRARY = "tensorflow_inference"
JAVA_CLASS = "TensorFlowInference"
"""The inference class of ``templates/android/TensorFlowInference.java.j2``."""

JavaApi = Literal["auto", "tensorflow", "tfbuild", "none"]
"""Which Java API a build's JNI library implements (``[android] java_api``):

- ``tensorflow``: the tree's own ``TensorFlowInferenceInterface`` over ``org.tensorflow.*``,
  built as TensorFlow's recipe builds ``libtensorflow_inference.so``: the AAR apps written for
  ``org.tensorflow:tensorflow-android`` take without a code change (:mod:`tfbuild.tree.java_api`);
- ``tfbuild``: tfbuild's own small class (float feeds only), the smallest library;
- ``none``: no JNI library;
- ``auto``: ``tensorflow`` for Android when the tree has the recipe, else ``tfbuild``; ``none``
  for every other platform (a host build for the JVM is asked for by name)."""
JAVA_APIS: tuple[str, ...] = get_args(JavaApi)
TENSORFLOW_JNI_LIBRARY = "tensorflow_inference"
"""What ``TensorFlowInferenceInterface`` loads (``System.loadLibrary``)."""

_JAVA_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_LIBRARY = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_JAVA_KEYWORDS = frozenset({
    "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
    "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
    "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
    "protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
    "throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null",
})


def check_java_package(package: str) -> None:
    """Refuse a package name that is not dotted Java identifiers of letters and digits (no
    ``_``: JNI would mangle it to ``_1``, and Android package names want at least two parts)."""
    parts = package.split(".")
    bad = next((part for part in parts if not _JAVA_IDENTIFIER.fullmatch(part) or part in _JAVA_KEYWORDS), None)
    if bad is not None or len(parts) < 2:
        raise ConfigError(
            f"Java package {package!r} is not a package name tfbuild can use"
            + (f" ({bad!r} is not a plain Java identifier)" if bad is not None else " (it needs two parts or more)"),
            hint="use dotted parts of letters and digits, each starting with a letter: com.example.app",
        )


def check_java_api(name: str) -> None:
    if name not in JAVA_APIS:
        raise ConfigError(f"Java API {name!r} is not one of {', '.join(JAVA_APIS)}",
                          hint="tensorflow: the tree's TensorFlowInferenceInterface; tfbuild: tfbuild's own class")


def check_library_name(name: str) -> None:
    """Refuse a library name ``System.loadLibrary`` and a file name cannot both take as it is."""
    if not _LIBRARY.fullmatch(name):
        raise ConfigError(
            f"JNI library name {name!r} is not letters, digits and '_' starting with a letter",
            hint="give the name without 'lib' and '.so': tensorflow_inference -> libtensorflow_inference.so",
        )


def jni_prefix(package: str) -> str:
    """``Java_org_tensorflow_tfbuild_TensorFlowInference_``: how JNI names the class's native methods."""
    return "Java_" + package.replace(".", "_") + f"_{JAVA_CLASS}_"
