/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Output.java. */

package org.tensorflow;

/**
 * A symbolic handle to a tensor produced by an {@link Operation}: the operation and the index of
 * its output.
 */
public final class Output<T> implements Operand<T> {

  /** The operation that produces this output. */
  public Operation op() {
    return operation;
  }

  /** The index of this output among the operation's outputs. */
  public int index() {
    return index;
  }

  /** The (possibly partially known) shape of the tensor. */
  public Shape shape() {
    return new Shape(operation.shape(index));
  }

  /** The type of the tensor's elements. */
  public DataType dataType() {
    return operation.dtype(index);
  }

  @Override
  public Output<T> asOutput() {
    return this;
  }

  @Override
  public int hashCode() {
    return operation.hashCode() * 31 + index;
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof Output<?>)) {
      return false;
    }
    Output<?> that = (Output<?>) o;
    return index == that.index && operation.equals(that.operation);
  }

  @Override
  public String toString() {
    return String.format(
        "<%s '%s:%d' shape=%s dtype=%s>",
        operation.type(), operation.name(), index, shape().toString(), dataType());
  }

  Output(Operation op, int idx) {
    operation = op;
    index = idx;
  }

  long getUnsafeNativeHandle() {
    return operation.getUnsafeNativeHandle();
  }

  private final Operation operation;
  private final int index;
}
