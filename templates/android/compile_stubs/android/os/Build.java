package android.os;

/** Compile-only stand-in (tfbuild): the real class is on the device. */
public class Build {
  private Build() {}

  /** Stand-in of the device's version fields. */
  public static class VERSION {
    private VERSION() {}

    /** Not a compile-time constant, as on a device: javac must read it at run time. */
    public static final int SDK_INT = Integer.parseInt("0");
    public static final String RELEASE = String.valueOf("");
  }

  /** Android's API levels: compile-time constants, as in android.jar. */
  public static class VERSION_CODES {
    private VERSION_CODES() {}

    public static final int JELLY_BEAN = 16;
    public static final int JELLY_BEAN_MR1 = 17;
    public static final int JELLY_BEAN_MR2 = 18;
    public static final int KITKAT = 19;
    public static final int LOLLIPOP = 21;
    public static final int M = 23;
    public static final int N = 24;
    public static final int O = 26;
  }
}
