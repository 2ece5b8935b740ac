/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Session.java. */

package org.tensorflow;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs the operations of a {@link Graph}.
 *
 * <pre>{@code
 * try (Session s = new Session(graph);
 *     Tensor<?> y = s.runner().feed("x", x).fetch("y").run().get(0)) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Instances are thread-safe. A Session holds native resources: {@link #close()} it when done.
 */
public final class Session implements AutoCloseable {

  /** A session for the graph {@code g}. */
  public Session(Graph g) {
    this(g, null);
  }

  /**
   * A session for the graph {@code g}, configured by {@code config}: a serialized ConfigProto
   * protocol buffer.
   *
   * @throws IllegalArgumentException if {@code config} is not a serialized ConfigProto.
   */
  public Session(Graph g, byte[] config) {
    graph = g;
    Graph.Reference r = g.ref();
    try {
      nativeHandle =
          (config == null) ? allocate(r.nativeHandle()) : allocate2(r.nativeHandle(), null, config);
      graphRef = g.ref();
    } finally {
      r.close();
    }
  }

  /** A session around an existing native handle, which it takes over. */
  Session(Graph g, long nativeHandle) {
    graph = g;
    this.nativeHandle = nativeHandle;
    graphRef = g.ref();
  }

  /** Releases the Session's native resources once no run is active. */
  @Override
  public void close() {
    graphRef.close();
    synchronized (nativeHandleLock) {
      if (nativeHandle == 0) {
        return;
      }
      while (numActiveRuns > 0) {
        try {
          nativeHandleLock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      delete(nativeHandle);
      nativeHandle = 0;
    }
  }

  /**
   * Feeds, fetches and targets of one run: {@link #run()} runs the parts of the graph the fetches
   * and targets need, with the fed tensors standing for the outputs they are fed to.
   */
  public final class Runner {
    /**
     * Feeds {@code t} to {@code operation}, either a name (its output 0) or
     * "operation_name:output_index".
     */
    public Runner feed(String operation, Tensor<?> t) {
      return feed(parseOutput(operation), t);
    }

    /** Feeds {@code t} to output {@code index} of {@code operation}. */
    public Runner feed(String operation, int index, Tensor<?> t) {
      Operation op = operationByName(operation);
      if (op != null) {
        inputs.add(op.output(index));
        inputTensors.add(t);
      }
      return this;
    }

    /** Feeds {@code t} to {@code output}. */
    public Runner feed(Output<?> output, Tensor<?> t) {
      inputs.add(output);
      inputTensors.add(t);
      return this;
    }

    /**
     * Makes {@link #run()} return the output of {@code operation}, either a name (its output 0) or
     * "operation_name:output_index".
     */
    public Runner fetch(String operation) {
      return fetch(parseOutput(operation));
    }

    /** Makes {@link #run()} return output {@code index} of {@code operation}. */
    public Runner fetch(String operation, int index) {
      Operation op = operationByName(operation);
      if (op != null) {
        outputs.add(op.output(index));
      }
      return this;
    }

    /** Makes {@link #run()} return the tensor of {@code output}. */
    public Runner fetch(Output<?> output) {
      outputs.add(output);
      return this;
    }

    /** Makes {@link #run()} run {@code operation} without returning any of its outputs. */
    public Runner addTarget(String operation) {
      Operation op = operationByName(operation);
      if (op != null) {
        targets.add(op);
      }
      return this;
    }

    /** Makes {@link #run()} run {@code op} without returning any of its outputs. */
    public Runner addTarget(Operation op) {
      targets.add(op);
      return this;
    }

    /** Options of this run: a serialized RunOptions protocol buffer (experimental). */
    public Runner setOptions(byte[] options) {
      this.runOptions = options;
      return this;
    }

    /**
     * Runs the graph and returns the fetched tensors, in the order of the fetch calls. The caller
     * owns them and must {@link Tensor#close()} them.
     */
    public List<Tensor<?>> run() {
      return runHelper(false).outputs;
    }

    /**
     * Like {@link #run()}, and also returns metadata about the run: a serialized RunMetadata
     * protocol buffer.
     */
    public Run runAndFetchMetadata() {
      return runHelper(true);
    }

    private Run runHelper(boolean wantMetadata) {
      long[] inputTensorHandles = new long[inputTensors.size()];
      long[] inputOpHandles = new long[inputs.size()];
      int[] inputOpIndices = new int[inputs.size()];
      long[] outputOpHandles = new long[outputs.size()];
      int[] outputOpIndices = new int[outputs.size()];
      long[] targetOpHandles = new long[targets.size()];
      long[] outputTensorHandles = new long[outputs.size()];

      int idx = 0;
      for (Tensor<?> t : inputTensors) {
        inputTensorHandles[idx++] = t.getNativeHandle();
      }
      idx = 0;
      for (Output<?> o : inputs) {
        inputOpHandles[idx] = o.getUnsafeNativeHandle();
        inputOpIndices[idx] = o.index();
        idx++;
      }
      idx = 0;
      for (Output<?> o : outputs) {
        outputOpHandles[idx] = o.getUnsafeNativeHandle();
        outputOpIndices[idx] = o.index();
        idx++;
      }
      idx = 0;
      for (Operation op : targets) {
        targetOpHandles[idx++] = op.getUnsafeNativeHandle();
      }
      Reference runRef = new Reference();
      byte[] metadata = null;
      try {
        metadata =
            Session.run(
                nativeHandle,
                runOptions,
                inputTensorHandles,
                inputOpHandles,
                inputOpIndices,
                outputOpHandles,
                outputOpIndices,
                targetOpHandles,
                wantMetadata,
                outputTensorHandles);
      } finally {
        runRef.close();
      }
      List<Tensor<?>> fetched = new ArrayList<Tensor<?>>();
      for (long h : outputTensorHandles) {
        fetched.add(Tensor.fromHandle(h));
      }
      Run ret = new Run();
      ret.outputs = fetched;
      ret.metadata = metadata;
      return ret;
    }

    // Counts an active run, so close() waits for it.
    private class Reference implements AutoCloseable {
      public Reference() {
        synchronized (nativeHandleLock) {
          if (nativeHandle == 0) {
            throw new IllegalStateException("run() cannot be called on the Session after close()");
          }
          ++numActiveRuns;
        }
      }

      @Override
      public void close() {
        synchronized (nativeHandleLock) {
          if (nativeHandle == 0) {
            return;
          }
          if (--numActiveRuns == 0) {
            nativeHandleLock.notifyAll();
          }
        }
      }
    }

    private Operation operationByName(String opName) {
      Operation op = graph.operation(opName);
      if (op == null) {
        throw new IllegalArgumentException("No Operation named [" + opName + "] in the Graph");
      }
      return op;
    }

    private Output<?> parseOutput(String opName) {
      int colon = opName.lastIndexOf(':');
      if (colon == -1 || colon == opName.length() - 1) {
        return operationByName(opName).output(0);
      }
      try {
        String op = opName.substring(0, colon);
        int index = Integer.parseInt(opName.substring(colon + 1));
        return operationByName(op).output(index);
      } catch (NumberFormatException e) {
        return operationByName(opName).output(0);
      }
    }

    private ArrayList<Output<?>> inputs = new ArrayList<Output<?>>();
    private ArrayList<Tensor<?>> inputTensors = new ArrayList<Tensor<?>>();
    private ArrayList<Output<?>> outputs = new ArrayList<Output<?>>();
    private ArrayList<Operation> targets = new ArrayList<Operation>();
    private byte[] runOptions = null;
  }

  /** A Runner for one run of the graph. */
  public Runner runner() {
    return new Runner();
  }

  /** The tensors and the metadata of a run ({@link Runner#runAndFetchMetadata()}). */
  public static final class Run {
    /** The fetched tensors. */
    public List<Tensor<?>> outputs;

    /** Metadata about the run: a serialized RunMetadata protocol buffer (experimental). */
    public byte[] metadata;
  }

  private final Graph graph;
  private final Graph.Reference graphRef;

  private final Object nativeHandleLock = new Object();
  private long nativeHandle;
  private int numActiveRuns;

  private static native long allocate(long graphHandle);

  private static native long allocate2(long graphHandle, String target, byte[] config);

  private static native void delete(long handle);

  /**
   * Runs the session: feeds the tensors of {@code inputTensorHandles} to the outputs given by
   * {@code inputOpHandles} and {@code inputOpIndices}, fetches the outputs given by {@code
   * outputOpHandles} and {@code outputOpIndices} into {@code outputTensorHandles}, and runs the
   * operations of {@code targetOpHandles}. Returns the serialized RunMetadata when {@code
   * wantRunMetadata}, else null.
   */
  private static native byte[] run(
      long handle,
      byte[] runOptions,
      long[] inputTensorHandles,
      long[] inputOpHandles,
      int[] inputOpIndices,
      long[] outputOpHandles,
      int[] outputOpIndices,
      long[] targetOpHandles,
      boolean wantRunMetadata,
      long[] outputTensorHandles);

  static {
    TensorFlow.init();
  }
}
