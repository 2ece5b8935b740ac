package android.os;

/** Run-time stand-in (tfbuild verify). */
public class Build {
  private Build() {}

  /** The device's version, as a Java VM stands in for it. */
  public static class VERSION {
    private VERSION() {}

    public static final int SDK_INT = Integer.getInteger("tfbuild.sdk_int", 26);
    public static final String RELEASE = "8.0.0";
  }

  /** Android's API levels. */
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
