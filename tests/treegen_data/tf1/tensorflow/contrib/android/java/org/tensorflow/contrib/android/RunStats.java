/* Stand-in written for tfbuild's test trees: NOT TensorFlow's RunStats.java. */

package org.tensorflow.contrib.android;

/** Gathers the stats of Session runs (their RunMetadata) and summarizes them. */
public class RunStats implements AutoCloseable {

  /**
   * Options for Session.Runner.setOptions that make a run record the stats this class reads: a
   * serialized RunOptions protocol buffer with trace_level FULL_TRACE.
   */
  public static byte[] runOptions() {
    return fullTraceRunOptions;
  }

  public RunStats() {
    nativeHandle = allocate();
  }

  @Override
  public void close() {
    if (nativeHandle != 0) {
      delete(nativeHandle);
    }
    nativeHandle = 0;
  }

  /** Adds the stats of one run: its serialized RunMetadata protocol buffer. */
  public synchronized void add(byte[] runMetadata) {
    add(nativeHandle, runMetadata);
  }

  /** A summary of the stats added so far. */
  public synchronized String summary() {
    return summary(nativeHandle);
  }

  private long nativeHandle;

  // RunOptions { trace_level (field 1): FULL_TRACE (3) }
  private static byte[] fullTraceRunOptions = new byte[] {0x08, 0x03};

  private static native long allocate();

  private static native void delete(long handle);

  private static native void add(long handle, byte[] runMetadata);

  private static native String summary(long handle);
}
