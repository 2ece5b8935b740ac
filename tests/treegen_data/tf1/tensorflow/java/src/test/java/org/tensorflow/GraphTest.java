/* Stand-in written for tfbuild's test trees: NOT TensorFlow's GraphTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link Graph}. */
@RunWith(JUnit4.class)
public class GraphTest {

  @Test
  public void graphDefRoundTrip() {
    byte[] graphDef;
    try (Graph g = new Graph()) {
      TestUtil.identityGraph(g);
      graphDef = g.toGraphDef();
    }
    try (Graph g = new Graph()) {
      g.importGraphDef(graphDef);
      assertEquals("Identity", g.operation("y").type());
      assertEquals("Placeholder", g.operation("x").type());
      assertEquals(DataType.FLOAT, g.operation("y").output(0).dataType());
    }
  }

  @Test
  public void importGraphDefWithPrefix() {
    byte[] graphDef;
    try (Graph g = new Graph()) {
      TestUtil.identityGraph(g);
      graphDef = g.toGraphDef();
    }
    try (Graph g = new Graph()) {
      g.importGraphDef(graphDef, "imported");
      assertNotNull(g.operation("imported/y"));
      assertNull(g.operation("y"));
    }
  }

  @Test
  public void iterateOverOperations() {
    try (Graph g = new Graph()) {
      Iterator<Operation> iterator = g.operations();
      assertFalse(iterator.hasNext());
      TestUtil.identityGraph(g);
      Set<String> names = new HashSet<String>();
      for (iterator = g.operations(); iterator.hasNext(); ) {
        names.add(iterator.next().name());
      }
      assertEquals(2, names.size());
      assertTrue(names.contains("x") && names.contains("y"));
    }
  }

  @Test
  public void failImportOnInvalidGraphDefs() {
    try (Graph g = new Graph()) {
      try {
        g.importGraphDef(null);
        fail("null graphDef accepted");
      } catch (IllegalArgumentException e) {
        // expected
      }
      try {
        g.importGraphDef(new byte[] {1, 2, 3});
        fail("invalid graphDef accepted");
      } catch (IllegalArgumentException e) {
        assertEquals("Invalid GraphDef", e.getMessage());
      }
    }
  }

  @Test
  public void failOnUseAfterClose() {
    Graph g = new Graph();
    g.close();
    try {
      g.toGraphDef();
      fail("toGraphDef worked on a closed Graph");
    } catch (IllegalStateException e) {
      // expected
    }
  }
}
