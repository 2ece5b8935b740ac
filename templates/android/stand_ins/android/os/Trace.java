package android.os;

/** Run-time stand-in (tfbuild verify): sections are not traced. */
public final class Trace {
  private Trace() {}

  public static void beginSection(String sectionName) {}

  public static void endSection() {}
}
