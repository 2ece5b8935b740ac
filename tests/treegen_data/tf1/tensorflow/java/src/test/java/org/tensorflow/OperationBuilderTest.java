/* Stand-in written for tfbuild's test trees: NOT TensorFlow's OperationBuilderTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link OperationBuilder}. */
@RunWith(JUnit4.class)
public class OperationBuilderTest {

  @Test
  public void failWhenMixingOperationsOnDifferentGraphs() {
    try (Graph g1 = new Graph();
        Graph g2 = new Graph()) {
      Output<Float> x = TestUtil.placeholder(g1, "x", Float.class);
      try {
        TestUtil.identity(g2, "y", x);
        fail("an input from another graph was accepted");
      } catch (IllegalArgumentException e) {
        // expected
      }
    }
  }

  @Test
  public void failOnUseAfterBuild() {
    try (Graph g = new Graph()) {
      OperationBuilder b = g.opBuilder("Placeholder", "x").setAttr("dtype", DataType.FLOAT);
      b.build();
      try {
        b.setAttr("dtype", DataType.INT32);
        fail("a built builder was used again");
      } catch (IllegalStateException e) {
        // expected
      }
    }
  }

  @Test
  public void failOnDuplicateNames() {
    try (Graph g = new Graph()) {
      TestUtil.placeholder(g, "x", Float.class);
      try {
        TestUtil.placeholder(g, "x", Float.class);
        fail("two operations named x");
      } catch (IllegalArgumentException e) {
        // expected
      }
    }
  }

  @Test
  public void setAttrs() {
    // The attributes the stand-in does not keep are still accepted.
    try (Graph g = new Graph()) {
      Operation op =
          g.opBuilder("Placeholder", "x")
              .setAttr("dtype", DataType.FLOAT)
              .setAttr("shape", Shape.make(2, 2))
              .setAttr("some_int", 7L)
              .setAttr("some_ints", new long[] {1, 2})
              .setAttr("some_float", 0.5f)
              .setAttr("some_floats", new float[] {0.5f})
              .setAttr("some_bool", true)
              .setAttr("some_bools", new boolean[] {true, false})
              .setAttr("some_string", "value")
              .setAttr("some_strings", new String[] {"a", "b"})
              .setAttr("some_types", new DataType[] {DataType.INT32})
              .setDevice("/cpu:0")
              .build();
      assertEquals("Placeholder", op.type());
      try (Tensor<Integer> value = Tensors.create(new int[] {1, 2, 3})) {
        Operation c =
            g.opBuilder("Const", "c").setAttr("dtype", value.dataType()).setAttr("value", value)
                .build();
        assertEquals(DataType.INT32, c.output(0).dataType());
        assertEquals(Shape.make(3), c.output(0).shape());
      }
    }
  }

  @Test
  public void addControlInput() {
    try (Graph g = new Graph();
        Session s = new Session(g)) {
      Operation x = TestUtil.placeholder(g, "x", Float.class).op();
      Operation noop = g.opBuilder("NoOp", "noop").build();
      g.opBuilder("Identity", "y").addInput(x.<Float>output(0)).addControlInput(noop).build();
      assertEquals(0, noop.numOutputs());
      try (Tensor<Float> t = Tensors.create(1f);
          Tensor<?> y = s.runner().feed("x", t).fetch("y").run().get(0)) {
        assertEquals(1f, y.floatValue(), 0f);
      }
    }
  }
}
