package android.os;

/** Compile-only stand-in (tfbuild): the real class is on the device. */
public final class Trace {
  private Trace() {}

  public static void beginSection(String sectionName) {
    throw new UnsupportedOperationException("compile-only stand-in");
  }

  public static void endSection() {
    throw new UnsupportedOperationException("compile-only stand-in");
  }
}
