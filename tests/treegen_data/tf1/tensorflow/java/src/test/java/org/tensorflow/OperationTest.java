/* Stand-in written for tfbuild's test trees: NOT TensorFlow's OperationTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.fail;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link Operation} and {@link Output}. */
@RunWith(JUnit4.class)
public class OperationTest {

  @Test
  public void operationEquality() {
    try (Graph g = new Graph()) {
      TestUtil.identityGraph(g);
      assertEquals(g.operation("x"), g.operation("x"));
      assertEquals(g.operation("x").hashCode(), g.operation("x").hashCode());
      assertNotEquals(g.operation("x"), g.operation("y"));
      assertEquals(g.operation("y").output(0), g.operation("y").output(0));
    }
  }

  @Test
  public void outputs() {
    try (Graph g = new Graph()) {
      TestUtil.identityGraph(g);
      Operation y = g.operation("y");
      assertEquals(1, y.numOutputs());
      assertEquals(1, y.outputListLength("output"));
      assertEquals(1, y.outputList(0, 1).length);
      assertEquals("<Identity 'y'>", y.toString());
      assertEquals("<Identity 'y:0' shape=<unknown> dtype=FLOAT>", y.output(0).toString());
    }
  }

  @Test
  public void outputListLengthFailsOnInvalidName() {
    try (Graph g = new Graph()) {
      TestUtil.identityGraph(g);
      try {
        g.operation("y").outputListLength("unknown");
        fail("an output list that does not exist");
      } catch (IllegalArgumentException e) {
        // expected
      }
    }
  }

  @Test
  public void failOnUseAfterGraphClose() {
    Operation x;
    try (Graph g = new Graph()) {
      x = TestUtil.placeholder(g, "x", Float.class).op();
    }
    try {
      x.name();
      fail("named an operation of a closed graph");
    } catch (IllegalStateException e) {
      // expected
    }
  }
}
