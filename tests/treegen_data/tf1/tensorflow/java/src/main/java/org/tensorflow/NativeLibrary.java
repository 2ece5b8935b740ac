/* Stand-in written for tfbuild's test trees: NOT TensorFlow's NativeLibrary.java. */

package org.tensorflow;

/**
 * Loads the JNI library the Java API's native methods live in.
 *
 * <p>On Android the application loads it (TensorFlowInferenceInterface loads
 * libtensorflow_inference.so); elsewhere {@code System.loadLibrary("tensorflow_jni")} finds it on
 * {@code java.library.path}. TensorFlow's also unpacks it from the jar's resources; the stand-in
 * ships none.
 */
final class NativeLibrary {
  private static final boolean DEBUG =
      System.getProperty("org.tensorflow.NativeLibrary.DEBUG") != null;
  private static final String JNI_LIBNAME = "tensorflow_jni";

  public static void load() {
    if (isLoaded() || tryLoadLibrary()) {
      return;
    }
    throw new UnsatisfiedLinkError(
        "Cannot find TensorFlow native library for OS: "
            + System.getProperty("os.name")
            + ", architecture: "
            + System.getProperty("os.arch")
            + ". Load libtensorflow_inference.so (Android) or put lib"
            + JNI_LIBNAME
            + " on java.library.path.");
  }

  private static boolean tryLoadLibrary() {
    try {
      System.loadLibrary(JNI_LIBNAME);
      return true;
    } catch (UnsatisfiedLinkError e) {
      log("tryLoadLibrary failed: " + e.getMessage());
      return false;
    }
  }

  private static boolean isLoaded() {
    try {
      TensorFlow.version();
      log("isLoaded: true");
      return true;
    } catch (UnsatisfiedLinkError e) {
      return false;
    }
  }

  private static void log(String msg) {
    if (DEBUG) {
      System.err.println("org.tensorflow.NativeLibrary: " + msg);
    }
  }

  private NativeLibrary() {}
}
