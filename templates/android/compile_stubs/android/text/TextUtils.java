package android.text;

/** Compile-only stand-in (tfbuild): the real class is on the device. */
public class TextUtils {
  private TextUtils() {}

  public static String join(CharSequence delimiter, Object[] tokens) {
    throw new UnsupportedOperationException("compile-only stand-in");
  }

  public static String join(CharSequence delimiter, Iterable tokens) {
    throw new UnsupportedOperationException("compile-only stand-in");
  }

  public static boolean isEmpty(CharSequence text) {
    throw new UnsupportedOperationException("compile-only stand-in");
  }
}
