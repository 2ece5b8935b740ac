/* Stand-in written for tfbuild's test trees: NOT TensorFlow's TestUtil.java. */

package org.tensorflow;

/** Graph-building helpers of the tests: the stand-in runs Placeholder and Identity. */
public class TestUtil {
  public static <T> Output<T> placeholder(Graph g, String name, Class<T> type) {
    return g.opBuilder("Placeholder", name)
        .setAttr("dtype", DataType.fromClass(type))
        .build()
        .<T>output(0);
  }

  public static <T> Output<T> placeholder(Graph g, String name, Class<T> type, Shape shape) {
    return g.opBuilder("Placeholder", name)
        .setAttr("dtype", DataType.fromClass(type))
        .setAttr("shape", shape)
        .build()
        .<T>output(0);
  }

  public static <T> Output<T> identity(Graph g, String name, Output<T> input) {
    return g.opBuilder("Identity", name).addInput(input).build().<T>output(0);
  }

  /** An op of type {@code type} on {@code input}, whatever kernels the library has. */
  public static <T> Output<T> unary(Graph g, String type, String name, Output<T> input) {
    return g.opBuilder(type, name).addInput(input).build().<T>output(0);
  }

  /** x = Placeholder (float), y = Identity(x). */
  public static void identityGraph(Graph g) {
    identity(g, "y", placeholder(g, "x", Float.class));
  }
}
