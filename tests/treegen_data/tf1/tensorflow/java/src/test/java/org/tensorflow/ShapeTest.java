/* Stand-in written for tfbuild's test trees: NOT TensorFlow's ShapeTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link Shape}. */
@RunWith(JUnit4.class)
public class ShapeTest {

  @Test
  public void unknown() {
    assertEquals(-1, Shape.unknown().numDimensions());
    assertEquals("<unknown>", Shape.unknown().toString());
  }

  @Test
  public void scalar() {
    assertEquals(0, Shape.scalar().numDimensions());
    assertEquals("[]", Shape.scalar().toString());
  }

  @Test
  public void make() {
    Shape s = Shape.make(2);
    assertEquals(1, s.numDimensions());
    assertEquals(2, s.size(0));
    assertEquals("[2]", s.toString());

    s = Shape.make(2, 3);
    assertEquals(2, s.numDimensions());
    assertEquals(3, s.size(1));
    assertEquals("[2, 3]", s.toString());

    s = Shape.make(-1, 2, 3);
    assertEquals(3, s.numDimensions());
    assertEquals(-1, s.size(0));
    assertEquals("[?, 2, 3]", s.toString());
  }

  @Test
  public void nodesInAGraph() {
    try (Graph g = new Graph()) {
      Output<Float> x = TestUtil.placeholder(g, "x", Float.class, Shape.make(-1, 28, 28));
      assertEquals(Shape.make(-1, 28, 28), x.shape());
      assertEquals(Shape.make(-1, 28, 28), TestUtil.identity(g, "y", x).shape());
      assertEquals(-1, TestUtil.placeholder(g, "z", Float.class).shape().numDimensions());
    }
  }

  @Test
  public void shapesSurviveAGraphDef() {
    byte[] graphDef;
    try (Graph g = new Graph()) {
      TestUtil.placeholder(g, "x", Float.class, Shape.make(1, 224, 224, 3));
      graphDef = g.toGraphDef();
    }
    try (Graph g = new Graph()) {
      g.importGraphDef(graphDef);
      assertEquals(224, g.operation("x").output(0).shape().size(1));
    }
  }

  @Test
  public void equalsWorksCorrectly() {
    assertEquals(Shape.scalar(), Shape.scalar());
    assertEquals(Shape.make(1, 2, 3), Shape.make(1, 2, 3));
    assertNotEquals(Shape.make(1, 2), Shape.make(1, 2, 3));
    assertNotEquals(Shape.unknown(), Shape.scalar());
  }
}
