/* Stand-in written for tfbuild's test trees: NOT TensorFlow's SessionTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.fail;

import java.util.List;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link Session}: the library registers Placeholder and Identity kernels. */
@RunWith(JUnit4.class)
public class SessionTest {

  @Test
  public void runUsingOperationNames() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      TestUtil.identityGraph(g);
      try (Tensor<Float> x = Tensors.create(new float[][] {{1.5f, -2f}, {3f, 4.25f}});
          Tensor<?> y = s.runner().feed("x", x).fetch("y").run().get(0)) {
        assertEquals(DataType.FLOAT, y.dataType());
        assertArrayEquals(new long[] {2, 2}, y.shape());
        float[][] values = y.copyTo(new float[2][2]);
        assertArrayEquals(new float[] {1.5f, -2f}, values[0], 0f);
        assertArrayEquals(new float[] {3f, 4.25f}, values[1], 0f);
      }
    }
  }

  @Test
  public void runUsingOperationHandles() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      Output<Integer> x = TestUtil.placeholder(g, "x", Integer.class);
      Output<Integer> y = TestUtil.identity(g, "y", x);
      try (Tensor<Integer> t = Tensors.create(new int[] {7, 8, 9});
          Tensor<?> out = s.runner().feed(x, t).fetch(y).run().get(0)) {
        assertArrayEquals(new int[] {7, 8, 9}, out.copyTo(new int[3]));
      }
    }
  }

  @Test
  public void runUsingColonSeparatedNames() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      TestUtil.identityGraph(g);
      try (Tensor<Float> x = Tensors.create(2.5f);
          Tensor<?> y = s.runner().feed("x:0", x).fetch("y:0").run().get(0)) {
        assertEquals(2.5f, y.floatValue(), 0f);
      }
    }
  }

  @Test
  public void runWithMetadata() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      TestUtil.identityGraph(g);
      try (Tensor<Float> x = Tensors.create(1f)) {
        Session.Run result =
            s.runner().feed("x", x).fetch("y").setOptions(new byte[] {0x08, 0x03})
                .runAndFetchMetadata();
        assertNotNull(result.metadata);
        assertEquals(1, result.outputs.size());
        for (Tensor<?> t : result.outputs) {
          t.close();
        }
      }
    }
  }

  @Test
  public void runMultipleOutputs() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      Output<Long> x = TestUtil.placeholder(g, "x", Long.class);
      TestUtil.identity(g, "a", x);
      TestUtil.identity(g, "b", x);
      try (Tensor<Long> t = Tensors.create(new long[] {1L << 40, -3L})) {
        List<Tensor<?>> outputs = s.runner().feed("x", t).fetch("a").fetch("b").run();
        assertEquals(2, outputs.size());
        for (Tensor<?> out : outputs) {
          assertArrayEquals(new long[] {1L << 40, -3L}, out.copyTo(new long[2]));
          out.close();
        }
      }
    }
  }

  @Test
  public void failWithoutAKernel() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      TestUtil.unary(g, "Sqrt", "y", TestUtil.placeholder(g, "x", Float.class));
      try (Tensor<Float> x = Tensors.create(4f)) {
        s.runner().feed("x", x).fetch("y").run();
        fail("ran an op the library has no kernel for");
      } catch (IllegalArgumentException e) {
        assertEquals("No OpKernel was registered to support Op 'Sqrt' used by node y", e.getMessage());
      }
    }
  }

  @Test
  public void failWhenAPlaceholderIsNotFed() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      TestUtil.identityGraph(g);
      try {
        s.runner().fetch("y").run();
        fail("ran without feeding x");
      } catch (IllegalArgumentException e) {
        assertEquals("You must feed a value for placeholder tensor 'x'", e.getMessage());
      }
    }
  }

  @Test
  public void failOnUnknownOperation() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      try {
        s.runner().fetch("nowhere");
        fail("fetched an operation the graph does not have");
      } catch (IllegalArgumentException e) {
        assertEquals("No Operation named [nowhere] in the Graph", e.getMessage());
      }
    }
  }

  @Test
  public void failOnUseAfterClose() {
    try (Graph g = new Graph()) {
      TestUtil.identityGraph(g);
      Session s = new Session(g);
      s.close();
      try {
        s.runner().fetch("y").run();
        fail("ran a closed Session");
      } catch (IllegalStateException e) {
        // expected
      }
    }
  }

  @Test
  public void createWithConfigProto() {
    try (Graph g = new Graph();
        Session s = new Session(g, new byte[] {0x38, 0x01})) {
      // ConfigProto { log_device_placement: true } is accepted.
      assertNotNull(s.runner());
    }
  }
}
