/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Tensors.java. */

package org.tensorflow;

import java.nio.charset.Charset;

/** Type-safe factories of {@link Tensor}s. */
public final class Tensors {
  private Tensors() {}

  /** A scalar String tensor of {@code data}'s UTF-8 bytes. */
  public static Tensor<String> create(String data) {
    return Tensor.create(data.getBytes(Charset.forName("UTF-8")), String.class);
  }

  /** A scalar String tensor of {@code data} in {@code charset}. */
  public static Tensor<String> create(String data, Charset charset) {
    return Tensor.create(data.getBytes(charset), String.class);
  }

  public static Tensor<Float> create(float data) {
    return Tensor.create(data, Float.class);
  }

  public static Tensor<Float> create(float[] data) {
    return Tensor.create(data, Float.class);
  }

  public static Tensor<Float> create(float[][] data) {
    return Tensor.create(data, Float.class);
  }

  public static Tensor<Double> create(double data) {
    return Tensor.create(data, Double.class);
  }

  public static Tensor<Double> create(double[] data) {
    return Tensor.create(data, Double.class);
  }

  public static Tensor<Integer> create(int data) {
    return Tensor.create(data, Integer.class);
  }

  public static Tensor<Integer> create(int[] data) {
    return Tensor.create(data, Integer.class);
  }

  public static Tensor<Integer> create(int[][] data) {
    return Tensor.create(data, Integer.class);
  }

  public static Tensor<Long> create(long data) {
    return Tensor.create(data, Long.class);
  }

  public static Tensor<Long> create(long[] data) {
    return Tensor.create(data, Long.class);
  }

  public static Tensor<Boolean> create(boolean data) {
    return Tensor.create(data, Boolean.class);
  }

  public static Tensor<Boolean> create(boolean[] data) {
    return Tensor.create(data, Boolean.class);
  }

  /** A scalar String tensor of the bytes {@code data}. */
  public static Tensor<String> create(byte[] data) {
    return Tensor.create(data, String.class);
  }

  /** A String vector of the byte sequences {@code data}. */
  public static Tensor<String> create(byte[][] data) {
    return Tensor.create(data, String.class);
  }
}
