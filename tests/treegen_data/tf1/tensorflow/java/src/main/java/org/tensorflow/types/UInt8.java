/* Stand-in written for tfbuild's test trees: NOT TensorFlow's UInt8.java. */

package org.tensorflow.types;

/** The type of 8-bit unsigned integer tensors: {@code Tensor<UInt8>}. */
public class UInt8 {
  private UInt8() {}
}
