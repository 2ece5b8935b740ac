/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Operation.java. */

package org.tensorflow;

/**
 * A {@link Graph} node that performs computation on tensors.
 *
 * <p>An Operation is valid while its Graph is open.
 */
public final class Operation {

  Operation(Graph g, long unsafeNativeHandle) {
    this.graph = g;
    this.unsafeNativeHandle = unsafeNativeHandle;
  }

  /** The full name of the Operation. */
  public String name() {
    Graph.Reference r = graph.ref();
    try {
      return name(unsafeNativeHandle);
    } finally {
      r.close();
    }
  }

  /** The type of the operation, i.e., the name of the computation it performs. */
  public String type() {
    Graph.Reference r = graph.ref();
    try {
      return type(unsafeNativeHandle);
    } finally {
      r.close();
    }
  }

  /** The number of tensors the operation produces. */
  public int numOutputs() {
    Graph.Reference r = graph.ref();
    try {
      return numOutputs(unsafeNativeHandle);
    } finally {
      r.close();
    }
  }

  /**
   * The size of the list of tensors the output argument {@code name} of the operation produces.
   *
   * @throws IllegalArgumentException if the operation has no output argument of that name.
   */
  public int outputListLength(final String name) {
    Graph.Reference r = graph.ref();
    try {
      return outputListLength(unsafeNativeHandle, name);
    } finally {
      r.close();
    }
  }

  /** {@code length} outputs of the operation, from {@code idx} on. */
  public Output<?>[] outputList(int idx, int length) {
    Output<?>[] outputs = new Output<?>[length];
    for (int i = 0; i < length; ++i) {
      outputs[i] = output(idx + i);
    }
    return outputs;
  }

  /** A symbolic handle to one of the tensors the operation produces. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  public <T> Output<T> output(int idx) {
    return new Output(this, idx);
  }

  @Override
  public int hashCode() {
    return Long.valueOf(unsafeNativeHandle).hashCode();
  }

  @Override
  public boolean equals(Object o) {
    if (o == this) {
      return true;
    }
    if (!(o instanceof Operation)) {
      return false;
    }
    Operation that = (Operation) o;
    if (graph != that.graph) {
      return false;
    }
    // The handles are only comparable while the Graph is open.
    Graph.Reference r = graph.ref();
    try {
      return unsafeNativeHandle == that.unsafeNativeHandle;
    } finally {
      r.close();
    }
  }

  @Override
  public String toString() {
    return String.format("<%s '%s'>", type(), name());
  }

  long getUnsafeNativeHandle() {
    return unsafeNativeHandle;
  }

  // The shape of output `idx`; null when its rank is unknown.
  long[] shape(int output) {
    Graph.Reference r = graph.ref();
    try {
      return shape(r.nativeHandle(), unsafeNativeHandle, output);
    } finally {
      r.close();
    }
  }

  DataType dtype(int output) {
    Graph.Reference r = graph.ref();
    try {
      return DataType.fromC(dtype(r.nativeHandle(), unsafeNativeHandle, output));
    } finally {
      r.close();
    }
  }

  private final long unsafeNativeHandle;
  private final Graph graph;

  private static native String name(long handle);

  private static native String type(long handle);

  private static native int numOutputs(long handle);

  private static native int outputListLength(long handle, String name);

  private static native long[] shape(long graphHandle, long opHandle, int output);

  private static native int dtype(long graphHandle, long opHandle, int output);
}
