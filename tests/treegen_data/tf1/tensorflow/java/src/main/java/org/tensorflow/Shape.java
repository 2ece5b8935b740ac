/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Shape.java. */

package org.tensorflow;

import java.util.Arrays;

/** The possibly partially known shape of a tensor produced by an operation. */
public final class Shape {

  /** A shape of unknown rank. */
  public static Shape unknown() {
    return new Shape(null);
  }

  /** The shape of a scalar. */
  public static Shape scalar() {
    return new Shape(new long[0]);
  }

  /**
   * A shape of the given sizes; -1 stands for a dimension of unknown size. For example, a batch
   * of 28x28 images: {@code Shape.make(-1, 28, 28)}.
   */
  public static Shape make(long firstDimensionSize, long... otherDimensionSizes) {
    long[] shape = new long[otherDimensionSizes.length + 1];
    shape[0] = firstDimensionSize;
    System.arraycopy(otherDimensionSizes, 0, shape, 1, otherDimensionSizes.length);
    return new Shape(shape);
  }

  /** The number of dimensions; -1 when unknown, 0 for a scalar. */
  public int numDimensions() {
    return shape == null ? -1 : shape.length;
  }

  /** The size of dimension {@code i}; -1 when unknown. */
  public long size(int i) {
    return shape[i];
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shape);
  }

  @Override
  public boolean equals(Object obj) {
    if (this == obj) {
      return true;
    }
    return obj instanceof Shape && Arrays.equals(this.shape, ((Shape) obj).shape);
  }

  /** The sizes in brackets, "?" for each unknown one; "<unknown>" for an unknown rank. */
  @Override
  public String toString() {
    if (shape == null) {
      return "<unknown>";
    }
    return Arrays.toString(shape).replace("-1", "?");
  }

  // Package-private: Output and OperationBuilder work with the sizes.
  Shape(long[] shape) {
    this.shape = shape;
  }

  long[] asArray() {
    return shape;
  }

  private final long[] shape;
}
