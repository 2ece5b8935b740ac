package android.text;

/** Run-time stand-in (tfbuild verify). */
public class TextUtils {
  private TextUtils() {}

  public static String join(CharSequence delimiter, Object[] tokens) {
    StringBuilder joined = new StringBuilder();
    for (int i = 0; i < tokens.length; i++) {
      if (i > 0) joined.append(delimiter);
      joined.append(tokens[i]);
    }
    return joined.toString();
  }

  public static String join(CharSequence delimiter, Iterable tokens) {
    StringBuilder joined = new StringBuilder();
    for (Object token : tokens) {
      if (joined.length() > 0) joined.append(delimiter);
      joined.append(token);
    }
    return joined.toString();
  }

  public static boolean isEmpty(CharSequence text) {
    return text == null || text.length() == 0;
  }
}
