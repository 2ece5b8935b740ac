/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Graph.java. */

package org.tensorflow;

import java.util.Iterator;

/**
 * A data flow graph of {@link Operation}s.
 *
 * <p>Instances are thread-safe. A Graph holds native resources: {@link #close()} it when done.
 */
public final class Graph implements AutoCloseable {

  /** An empty Graph. */
  public Graph() {
    nativeHandle = allocate();
  }

  /** A Graph for an existing native handle, which it takes over. */
  Graph(long nativeHandle) {
    this.nativeHandle = nativeHandle;
  }

  /**
   * Releases the Graph's native resources, once no {@link Session} uses it. The Graph is not
   * usable afterwards.
   */
  @Override
  public void close() {
    synchronized (nativeHandleLock) {
      if (nativeHandle == 0) {
        return;
      }
      while (refcount > 0) {
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

  /** The operation named {@code name}, or null when the Graph has none. */
  public Operation operation(String name) {
    synchronized (nativeHandleLock) {
      long oph = operation(nativeHandle, name);
      if (oph == 0) {
        return null;
      }
      return new Operation(this, oph);
    }
  }

  /** The Graph's operations, in an unspecified order. */
  public Iterator<Operation> operations() {
    return new OperationIterator(this);
  }

  /**
   * A builder that adds an operation of type {@code type} named {@code name} to the Graph when its
   * {@link OperationBuilder#build()} is called.
   */
  public OperationBuilder opBuilder(String type, String name) {
    return new OperationBuilder(this, type, name);
  }

  /**
   * Imports a serialized GraphDef protocol buffer.
   *
   * @throws IllegalArgumentException if {@code graphDef} is not a serialized GraphDef.
   */
  public void importGraphDef(byte[] graphDef) throws IllegalArgumentException {
    importGraphDef(graphDef, "");
  }

  /**
   * Imports a serialized GraphDef protocol buffer, its operations' names prefixed with
   * {@code prefix + "/"}.
   *
   * @throws IllegalArgumentException if {@code graphDef} is not a serialized GraphDef.
   */
  public void importGraphDef(byte[] graphDef, String prefix) throws IllegalArgumentException {
    if (graphDef == null || prefix == null) {
      throw new IllegalArgumentException("graphDef and prefix cannot be null");
    }
    synchronized (nativeHandleLock) {
      importGraphDef(nativeHandle, graphDef, prefix);
    }
  }

  /** The Graph as a serialized GraphDef protocol buffer. */
  public byte[] toGraphDef() {
    synchronized (nativeHandleLock) {
      return toGraphDef(nativeHandle);
    }
  }

  private final Object nativeHandleLock = new Object();
  private long nativeHandle;
  private int refcount = 0;

  // Handles of the Graph's native objects (operations, sessions) stay valid while a Reference
  // is open: close() waits for every Reference to be closed.
  class Reference implements AutoCloseable {
    private Reference() {
      synchronized (Graph.this.nativeHandleLock) {
        active = Graph.this.nativeHandle != 0;
        if (!active) {
          throw new IllegalStateException("close() has been called on the Graph");
        }
        Graph.this.refcount++;
      }
    }

    @Override
    public void close() {
      synchronized (Graph.this.nativeHandleLock) {
        if (!active) {
          return;
        }
        active = false;
        if (--Graph.this.refcount == 0) {
          Graph.this.nativeHandleLock.notifyAll();
        }
      }
    }

    public long nativeHandle() {
      synchronized (Graph.this.nativeHandleLock) {
        return active ? Graph.this.nativeHandle : 0;
      }
    }

    private boolean active;
  }

  Reference ref() {
    return new Reference();
  }

  private static final class OperationIterator implements Iterator<Operation> {

    OperationIterator(Graph g) {
      this.graph = g;
      this.operation = null;
      this.position = 0;
      this.advance();
    }

    private void advance() {
      Graph.Reference reference = this.graph.ref();
      this.operation = null;
      try {
        long[] next = nextOperation(reference.nativeHandle(), this.position);
        if (next != null && next[0] != 0) {
          this.operation = new Operation(this.graph, next[0]);
          this.position = (int) next[1];
        }
      } finally {
        reference.close();
      }
    }

    @Override
    public boolean hasNext() {
      return this.operation != null;
    }

    @Override
    public Operation next() {
      Operation current = this.operation;
      this.advance();
      return current;
    }

    @Override
    public void remove() {
      throw new UnsupportedOperationException("remove() is unsupported.");
    }

    private final Graph graph;
    private Operation operation;
    private int position;
  }

  private static native long allocate();

  private static native void delete(long handle);

  private static native long operation(long handle, String name);

  // The operation's handle at index 0, the next position at index 1 (TF_GraphNextOperation).
  private static native long[] nextOperation(long handle, int position);

  private static native void importGraphDef(long handle, byte[] graphDef, String prefix)
      throws IllegalArgumentException;

  private static native byte[] toGraphDef(long handle);

  static {
    TensorFlow.init();
  }
}
