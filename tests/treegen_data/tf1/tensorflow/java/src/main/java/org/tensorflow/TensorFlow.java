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

  private TensorFlow() {}

  /** Loads the native library; every class with native methods calls it first. */
  static void init() {
    NativeLibrary.load();
  }

  static {
    init();
  }
}
