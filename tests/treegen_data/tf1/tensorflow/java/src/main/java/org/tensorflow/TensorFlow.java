/* Stand-in written for tfbuild's test trees: NOT TensorFlow's TensorFlow.java. */

package org.tensorflow;

/** Static utility methods describing the TensorFlow runtime. */
public final class TensorFlow {
  /** The version of the underlying TensorFlow runtime. */
  public static native String version();

  /**
   * All the operations registered in the runtime: a serialized OpList protocol buffer
   * (tensorflow/core/framework/op_def.proto).
   */
  public static native byte[] registeredOpList();

  /**
   * Loads a custom-op library (a shared object whose ops register in this runtime) and returns
   * the serialized OpList of the ops it registered.
   *
   * @throws UnsatisfiedLinkError when the library cannot be loaded.
   */
  public static byte[] loadLibrary(String filename) {
    long handle = 0;
    try {
      handle = libraryLoad(filename);
    } catch (RuntimeException e) {
      throw new UnsatisfiedLinkError(e.getMessage());
    }
    try {
      return libraryOpList(handle);
    } finally {
      libraryDelete(handle);
    }
  }

  private static native long libraryLoad(String filename);

  private static native void libraryDelete(long handle);

  private static native byte[] libraryOpList(long handle);

  private TensorFlow() {}

  /** Loads the native library; every class with native methods calls it first. */
  static void init() {
    NativeLibrary.load();
  }

  static {
    init();
  }
}
