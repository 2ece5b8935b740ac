/* Stand-in written for tfbuild's test trees: NOT TensorFlow's TensorFlowTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.Charset;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link TensorFlow}. */
@RunWith(JUnit4.class)
public class TensorFlowTest {
  @Test
  public void version() {
    assertTrue(TensorFlow.version().matches("1\\.[0-9]+\\.[0-9]+.*"));
  }

  @Test
  public void registeredOpList() {
    // An OpList of OpDefs: the ops of the library's selection are named in it.
    String ops = new String(TensorFlow.registeredOpList(), Charset.forName("ISO-8859-1"));
    assertTrue(ops, ops.contains("Placeholder") && ops.contains("Identity"));
  }

  @Test
  public void loadLibrary() {
    try (Graph g = new Graph()) {
      // Build a graph with an unrecognized operation.
      try {
        g.opBuilder("MyTest", "MyTest").build();
        fail("should not be able to construct graphs with unregistered ops");
      } catch (IllegalArgumentException e) {
        // expected exception
      }

      // Load the library containing the operation (tensorflow/java/BUILD's my_test_op.so,
      // by the path Bazel runs the test from).
      byte[] opList = TensorFlow.loadLibrary("tensorflow/java/my_test_op.so");
      assertTrue(opList.length > 0);
      String ops = new String(opList, Charset.forName("ISO-8859-1"));
      assertTrue(ops, ops.contains("MyTest"));

      // Now graph building should succeed.
      g.opBuilder("MyTest", "MyTest").build();
    }
  }
}
