"""Stand-ins of the ``android.*`` classes that TensorFlow's Android Java touches, for the JDK.

Debian ships no ``android.jar``, so Java that imports ``android.*`` (the tf1 tree's
``TensorFlowInferenceInterface``, the demo-shaped sources of ``treegen.DEMO_SOURCES``) compiles
here against classes written by this module:

- :func:`write_compile_stubs`: the API the sources call, with bodies that throw as
  ``android.jar``'s do ("Stub!"), for compiling only. ``Build.VERSION.SDK_INT`` is not a
  compile-time constant there (javac must not inline it), as in ``android.jar``.
- :func:`write_runtime_standins`: the same classes working on a host JVM: ``AssetManager``
  (constructed on a directory) opens its files, ``Log`` prints ``I/tag: message`` lines to
  stderr, ``Trace`` does nothing, ``Build.VERSION.SDK_INT`` is :data:`RUNTIME_SDK_INT`, ``Bitmap``
  holds ARGB pixels, ``SystemClock`` reads the JVM's clocks.

Both write ``.java`` sources under a directory; :func:`javac` compiles sources at Java 8 level
(``--release 8``), as Android's toolchains take them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

RUNTIME_SDK_INT = 26
JAVA_RELEASE = "8"

# The classes both sets have, by path; {body} parts differ between the compile stubs and the
# run-time stand-ins.
_STUB = 'throw new RuntimeException("Stub!");'

_COMPILE_STUBS: dict[str, str] = {
    "android/content/res/AssetManager.java": f"""package android.content.res;
import java.io.IOException;
import java.io.InputStream;
public final class AssetManager {{
  private AssetManager() {{ {_STUB} }}
  public final InputStream open(String fileName) throws IOException {{ {_STUB} }}
  public final String[] list(String path) throws IOException {{ {_STUB} }}
  public void close() {{ {_STUB} }}
}}
""",
    "android/graphics/Bitmap.java": f"""package android.graphics;
public final class Bitmap {{
  private Bitmap() {{ {_STUB} }}
  public final int getWidth() {{ {_STUB} }}
  public final int getHeight() {{ {_STUB} }}
  public void getPixels(int[] pixels, int offset, int stride, int x, int y, int width, int height) {{ {_STUB} }}
}}
""",
    "android/graphics/RectF.java": f"""package android.graphics;
public class RectF {{
  public float left;
  public float top;
  public float right;
  public float bottom;
  public RectF() {{ {_STUB} }}
  public RectF(float left, float top, float right, float bottom) {{ {_STUB} }}
  public RectF(RectF r) {{ {_STUB} }}
  public final float width() {{ {_STUB} }}
  public final float height() {{ {_STUB} }}
  public final float centerX() {{ {_STUB} }}
  public final float centerY() {{ {_STUB} }}
  public void set(float left, float top, float right, float bottom) {{ {_STUB} }}
}}
""",
    "android/os/Build.java": f"""package android.os;
public class Build {{
  public Build() {{ {_STUB} }}
  public static class VERSION {{
    public VERSION() {{ {_STUB} }}
    // Not a compile-time constant: android.jar's is read from the device at run time.
    public static final int SDK_INT = sdkInt();
    private static int sdkInt() {{ {_STUB} }}
  }}
}}
""",
    "android/os/SystemClock.java": f"""package android.os;
public final class SystemClock {{
  private SystemClock() {{ {_STUB} }}
  public static long uptimeMillis() {{ {_STUB} }}
  public static long currentThreadTimeMillis() {{ {_STUB} }}
}}
""",
    "android/os/Trace.java": f"""package android.os;
public final class Trace {{
  private Trace() {{ {_STUB} }}
  public static void beginSection(String sectionName) {{ {_STUB} }}
  public static void endSection() {{ {_STUB} }}
}}
""",
    "android/text/TextUtils.java": f"""package android.text;
public class TextUtils {{
  private TextUtils() {{ {_STUB} }}
  public static String join(CharSequence delimiter, Object[] tokens) {{ {_STUB} }}
  public static String join(CharSequence delimiter, Iterable tokens) {{ {_STUB} }}
  public static boolean isEmpty(CharSequence str) {{ {_STUB} }}
}}
""",
    "android/util/Log.java": f"""package android.util;
public final class Log {{
  private Log() {{ {_STUB} }}
  public static int v(String tag, String msg) {{ {_STUB} }}
  public static int d(String tag, String msg) {{ {_STUB} }}
  public static int i(String tag, String msg) {{ {_STUB} }}
  public static int w(String tag, String msg) {{ {_STUB} }}
  public static int e(String tag, String msg) {{ {_STUB} }}
  public static int e(String tag, String msg, Throwable tr) {{ {_STUB} }}
  public static int v(String tag, String msg, Throwable tr) {{ {_STUB} }}
  public static int d(String tag, String msg, Throwable tr) {{ {_STUB} }}
  public static int i(String tag, String msg, Throwable tr) {{ {_STUB} }}
  public static int w(String tag, String msg, Throwable tr) {{ {_STUB} }}
  public static boolean isLoggable(String tag, int level) {{ {_STUB} }}
  public static final int VERBOSE = 2;
  public static final int DEBUG = 3;
  public static final int INFO = 4;
  public static final int WARN = 5;
  public static final int ERROR = 6;
  public static final int ASSERT = 7;
}}
""",
}

_RUNTIME_STANDINS: dict[str, str] = {
    "android/content/res/AssetManager.java": """package android.content.res;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
/** Host stand-in: the assets are the files under a directory. */
public final class AssetManager {
  private final File root;
  public AssetManager(File root) { this.root = root; }
  public final InputStream open(String fileName) throws IOException {
    File file = new File(root, fileName);
    if (!file.isFile()) throw new java.io.FileNotFoundException(fileName);
    return new FileInputStream(file);
  }
  public final String[] list(String path) throws IOException {
    String[] names = new File(root, path).list();
    return names == null ? new String[0] : names;
  }
  public void close() {}
}
""",
    "android/graphics/Bitmap.java": """package android.graphics;
/** Host stand-in: ARGB pixels, row by row. */
public final class Bitmap {
  private final int width;
  private final int height;
  private final int[] argb;
  public Bitmap(int width, int height, int[] argb) { this.width = width; this.height = height; this.argb = argb; }
  public final int getWidth() { return width; }
  public final int getHeight() { return height; }
  public void getPixels(int[] pixels, int offset, int stride, int x, int y, int width, int height) {
    for (int row = 0; row < height; ++row) {
      System.arraycopy(argb, (y + row) * this.width + x, pixels, offset + row * stride, width);
    }
  }
}
""",
    "android/graphics/RectF.java": """package android.graphics;
public class RectF {
  public float left;
  public float top;
  public float right;
  public float bottom;
  public RectF() {}
  public RectF(float left, float top, float right, float bottom) { set(left, top, right, bottom); }
  public RectF(RectF r) { if (r != null) set(r.left, r.top, r.right, r.bottom); }
  public final float width() { return right - left; }
  public final float height() { return bottom - top; }
  public final float centerX() { return (left + right) * 0.5f; }
  public final float centerY() { return (top + bottom) * 0.5f; }
  public void set(float left, float top, float right, float bottom) {
    this.left = left; this.top = top; this.right = right; this.bottom = bottom;
  }
  @Override public String toString() { return "RectF(" + left + ", " + top + ", " + right + ", " + bottom + ")"; }
}
""",
    "android/os/Build.java": f"""package android.os;
public class Build {{
  public static class VERSION {{
    public static final int SDK_INT = Integer.getInteger("android.os.Build.VERSION.SDK_INT", {RUNTIME_SDK_INT});
  }}
}}
""",
    "android/os/SystemClock.java": """package android.os;
public final class SystemClock {
  private SystemClock() {}
  public static long uptimeMillis() { return System.nanoTime() / 1000000L; }
  public static long currentThreadTimeMillis() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1000000L;
  }
}
""",
    "android/os/Trace.java": """package android.os;
/** Host stand-in: sections are not recorded. */
public final class Trace {
  private Trace() {}
  public static void beginSection(String sectionName) {}
  public static void endSection() {}
}
""",
    "android/text/TextUtils.java": """package android.text;
import java.util.ArrayList;
import java.util.List;
public class TextUtils {
  private TextUtils() {}
  public static String join(CharSequence delimiter, Object[] tokens) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < tokens.length; ++i) {
      if (i > 0) out.append(delimiter);
      out.append(tokens[i]);
    }
    return out.toString();
  }
  public static String join(CharSequence delimiter, Iterable tokens) {
    List<Object> items = new ArrayList<Object>();
    for (Object token : tokens) items.add(token);
    return join(delimiter, items.toArray());
  }
  public static boolean isEmpty(CharSequence str) { return str == null || str.length() == 0; }
}
""",
    "android/util/Log.java": """package android.util;
/** Host stand-in: "L/tag: message" lines on stderr, as logcat shows them. */
public final class Log {
  private Log() {}
  private static int print(String level, String tag, String msg) {
    String line = level + "/" + tag + ": " + msg;
    System.err.println(line);
    return line.length();
  }
  public static int v(String tag, String msg) { return print("V", tag, msg); }
  public static int d(String tag, String msg) { return print("D", tag, msg); }
  public static int i(String tag, String msg) { return print("I", tag, msg); }
  public static int w(String tag, String msg) { return print("W", tag, msg); }
  public static int e(String tag, String msg) { return print("E", tag, msg); }
  public static int e(String tag, String msg, Throwable tr) { return print("E", tag, msg + ": " + tr); }
}
""",
}

ANDROID_CLASSES = tuple(sorted(path.removesuffix(".java").replace("/", ".") for path in _COMPILE_STUBS))
"""The android.* classes both sets provide."""


def _write(sources: dict[str, str], directory: Path) -> Path:
    for relative, text in sources.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return directory


def write_compile_stubs(directory: Path) -> Path:
    """The compile-time stubs' sources under ``directory`` (returned)."""
    return _write(_COMPILE_STUBS, directory)


def write_runtime_standins(directory: Path) -> Path:
    """The host JVM stand-ins' sources under ``directory`` (returned)."""
    return _write(_RUNTIME_STANDINS, directory)


def java_sources(*directories: Path) -> list[Path]:
    """The ``.java`` files under ``directories``, sorted."""
    return sorted(path for directory in directories for path in directory.rglob("*.java"))


def javac(sources: list[Path], out: Path, classpath: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Compiles ``sources`` at Java 8 level into ``out`` (not checked: callers assert)."""
    out.mkdir(parents=True, exist_ok=True)
    command = ["javac", "--release", JAVA_RELEASE, "-encoding", "UTF-8", "-Xlint:-options", "-d", str(out)]
    if classpath:
        command += ["-cp", ":".join(str(path) for path in classpath)]
    return subprocess.run([*command, *(str(path) for path in sources)], capture_output=True, text=True)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def graph_def(op: str) -> bytes:
    """A GraphDef: a float [2, 3] Placeholder ``x`` and ``y = op(x)``."""
    dt_float = _varint(6 << 3) + _varint(1)  # AttrValue.type = DT_FLOAT
    shape = _field(7, _field(2, _field(1, b"") + _varint(1 << 3) + _varint(2)) + _field(2, _varint(1 << 3) + _varint(3)))
    x = (_field(1, b"x") + _field(2, b"Placeholder") + _field(5, _field(1, b"dtype") + _field(2, dt_float))
         + _field(5, _field(1, b"shape") + _field(2, shape)))
    y = _field(1, b"y") + _field(2, op.encode()) + _field(3, b"x") + _field(5, _field(1, b"T") + _field(2, dt_float))
    return _field(1, x) + _field(1, y)
