/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Operand.java. */

package org.tensorflow;

/** Something that stands for the output of an operation: an {@link Output} or an op wrapper. */
public interface Operand<T> {
  /** The symbolic handle of a tensor. */
  Output<T> asOutput();
}
