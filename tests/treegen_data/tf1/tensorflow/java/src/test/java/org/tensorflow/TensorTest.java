/* Stand-in written for tfbuild's test trees: NOT TensorFlow's TensorTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.charset.Charset;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;
import org.tensorflow.types.UInt8;

/** Unit tests for {@link Tensor}. */
@RunWith(JUnit4.class)
public class TensorTest {

  @Test
  public void createWithBuffer() {
    float[] floats = {1f, 2f, 3f, 4f, 5f, 6f};
    try (Tensor<Float> t = Tensor.create(new long[] {2, 3}, FloatBuffer.wrap(floats))) {
      assertEquals(DataType.FLOAT, t.dataType());
      assertEquals(2, t.numDimensions());
      assertEquals(6, t.numElements());
      assertEquals(24, t.numBytes());
      FloatBuffer out = FloatBuffer.allocate(6);
      t.writeTo(out);
      assertArrayEquals(floats, out.array(), 0f);
    }
    ByteBuffer bytes = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
    bytes.asIntBuffer().put(new int[] {11, -12});
    try (Tensor<Integer> t = Tensor.create(Integer.class, new long[] {2}, bytes)) {
      IntBuffer out = IntBuffer.allocate(2);
      t.writeTo(out);
      assertArrayEquals(new int[] {11, -12}, out.array());
    }
    try (Tensor<UInt8> t = Tensor.create(UInt8.class, new long[] {3}, ByteBuffer.wrap(new byte[] {1, 2, (byte) 255}))) {
      assertEquals(DataType.UINT8, t.dataType());
      assertEquals(3, t.numBytes());
    }
  }

  @Test
  public void failCreateOnIncompatibleBuffer() {
    try {
      Tensor.create(new long[] {2, 3}, FloatBuffer.wrap(new float[5]));
      fail("5 floats accepted for a shape of 6");
    } catch (IllegalArgumentException e) {
      assertEquals("buffer with 5 elements is not compatible with a Tensor with shape [2, 3]", e.getMessage());
    }
  }

  @Test
  public void scalars() {
    try (Tensor<Float> t = Tensors.create(2.718f)) {
      assertEquals(DataType.FLOAT, t.dataType());
      assertEquals(0, t.numDimensions());
      assertEquals(2.718f, t.floatValue(), 0f);
    }
    try (Tensor<Double> t = Tensors.create(3.1415)) {
      assertEquals(3.1415, t.doubleValue(), 0);
    }
    try (Tensor<Integer> t = Tensors.create(-33)) {
      assertEquals(-33, t.intValue());
    }
    try (Tensor<Long> t = Tensors.create(8589934592L)) {
      assertEquals(8589934592L, t.longValue());
    }
    try (Tensor<Boolean> t = Tensors.create(true)) {
      assertTrue(t.booleanValue());
    }
    try (Tensor<String> t = Tensors.create("sombrero")) {
      assertEquals(DataType.STRING, t.dataType());
      assertEquals("sombrero", new String(t.bytesValue(), Charset.forName("UTF-8")));
    }
  }

  @Test
  public void nDimensional() {
    int[][][] threeD = {{{1, 2}, {3, 4}, {5, 6}}, {{7, 8}, {9, 10}, {11, 12}}};
    try (Tensor<Integer> t = Tensor.create(threeD, Integer.class)) {
      assertArrayEquals(new long[] {2, 3, 2}, t.shape());
      int[][][] copy = t.copyTo(new int[2][3][2]);
      assertEquals(12, copy[1][2][1]);
      assertEquals(3, copy[0][1][0]);
    }
    boolean[][] bools = {{true, false}, {false, true}};
    try (Tensor<Boolean> t = Tensor.create(bools, Boolean.class)) {
      boolean[][] copy = t.copyTo(new boolean[2][2]);
      assertTrue(copy[0][0] && copy[1][1] && !copy[0][1]);
    }
    byte[][] strings = {"a".getBytes(Charset.forName("UTF-8")), "bc".getBytes(Charset.forName("UTF-8"))};
    try (Tensor<String> t = Tensors.create(strings)) {
      assertArrayEquals(new long[] {2}, t.shape());
      byte[][] copy = t.copyTo(new byte[2][]);
      assertEquals("bc", new String(copy[1], Charset.forName("UTF-8")));
    }
  }

  @Test
  public void failCreateOnMismatchedDimensions() {
    int[][] invalid = new int[3][];
    for (int i = 0; i < invalid.length; ++i) {
      invalid[i] = new int[i + 1];
    }
    try {
      Tensors.create(invalid);
      fail("a ragged array made a Tensor");
    } catch (IllegalArgumentException e) {
      // expected
    }
  }

  @Test
  public void failCopyToOnIncompatibleDestination() {
    try (Tensor<Integer> t = Tensors.create(new int[][] {{1, 2}, {3, 4}})) {
      try {
        t.copyTo(new int[3][2]);
        fail("copied into a [3, 2] array");
      } catch (IllegalArgumentException e) {
        // expected
      }
      try {
        t.copyTo(new float[2][2]);
        fail("copied int32 into floats");
      } catch (IllegalArgumentException e) {
        // expected
      }
    }
  }

  @Test
  public void expectChecksTheType() {
    try (Tensor<?> t = Tensor.create(new float[] {1f})) {
      assertEquals(DataType.FLOAT, t.expect(Float.class).dataType());
      try {
        t.expect(Integer.class);
        fail("a float tensor passed as int32");
      } catch (IllegalArgumentException e) {
        assertEquals("Cannot cast from tensor of FLOAT to tensor of INT32", e.getMessage());
      }
    }
  }

  @Test
  public void useAfterClose() {
    Tensor<Integer> t = Tensors.create(1);
    t.close();
    try {
      t.intValue();
      fail("read a closed Tensor");
    } catch (NullPointerException e) {
      // expected
    }
  }
}
