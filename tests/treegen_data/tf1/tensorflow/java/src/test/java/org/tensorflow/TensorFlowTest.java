/* Stand-in written for tfbuild's test trees: NOT TensorFlow's TensorFlowTest.java. */

package org.tensorflow;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.Charset;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.JUnit4;

/** Unit tests for {@link TensorFlow} and {@link SavedModelBundle}. */
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
  public void savedModelsAreNotForAndroid() {
    try {
      SavedModelBundle.load("/nonexistent", "serve");
      fail("a SavedModel was loaded off its platform");
    } catch (UnsupportedOperationException e) {
      assertTrue(e.getMessage(), e.getMessage().contains("Loading a SavedModel is not supported in Android"));
    }
  }
}
