package android.util;

/** Compile-only stand-in (tfbuild): the real class is on the device. */
public final class Log {
  private Log() {}

  public static int v(String tag, String msg) { throw new UnsupportedOperationException(); }
  public static int d(String tag, String msg) { throw new UnsupportedOperationException(); }
  public static int i(String tag, String msg) { throw new UnsupportedOperationException(); }
  public static int w(String tag, String msg) { throw new UnsupportedOperationException(); }
  public static int w(String tag, String msg, Throwable tr) { throw new UnsupportedOperationException(); }
  public static int w(String tag, Throwable tr) { throw new UnsupportedOperationException(); }
  public static int e(String tag, String msg) { throw new UnsupportedOperationException(); }
  public static int e(String tag, String msg, Throwable tr) { throw new UnsupportedOperationException(); }
}
