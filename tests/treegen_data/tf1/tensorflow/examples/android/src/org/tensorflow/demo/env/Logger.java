/* Stand-in written for tfbuild's test trees: NOT TensorFlow's env/Logger.java. */

package org.tensorflow.demo.env;

import android.util.Log;

/** android.util.Log with one tag and printf-style messages. */
public final class Logger {
  private static final String DEFAULT_TAG = "tensorflow";

  private final String tag;

  public Logger(final String tag) {
    this.tag = tag;
  }

  public Logger() {
    this(DEFAULT_TAG);
  }

  private String format(final String message, final Object... args) {
    return args.length > 0 ? String.format(message, args) : message;
  }

  public void v(final String format, final Object... args) {
    Log.v(tag, format(format, args));
  }

  public void d(final String format, final Object... args) {
    Log.d(tag, format(format, args));
  }

  public void i(final String format, final Object... args) {
    Log.i(tag, format(format, args));
  }

  public void w(final String format, final Object... args) {
    Log.w(tag, format(format, args));
  }

  public void e(final String format, final Object... args) {
    Log.e(tag, format(format, args));
  }

  public void e(final Throwable t, final String format, final Object... args) {
    Log.e(tag, format(format, args), t);
  }
}
