/* Stand-in written for tfbuild's test trees: NOT TensorFlow's SavedModelBundle.java. */

package org.tensorflow;

/**
 * A SavedModel loaded into a {@link Graph} and a {@link Session}, with its MetaGraphDef.
 *
 * <p>Not available on Android: {@link #load(String, String...)} throws
 * UnsupportedOperationException there, as the C API refuses to load SavedModels.
 */
public class SavedModelBundle implements AutoCloseable {

  /**
   * Loads the SavedModel in {@code exportDir}, the MetaGraphDef tagged {@code tags}.
   *
   * @throws UnsupportedOperationException on Android.
   */
  public static SavedModelBundle load(String exportDir, String... tags) {
    return load(exportDir, tags, null, null);
  }

  /** The serialized MetaGraphDef protocol buffer of the loaded model. */
  public byte[] metaGraphDef() {
    return metaGraphDef;
  }

  /** The graph the model was loaded into. */
  public Graph graph() {
    return graph;
  }

  /** The session that runs the graph. */
  public Session session() {
    return session;
  }

  @Override
  public void close() {
    session.close();
    graph.close();
  }

  private final Graph graph;
  private final Session session;
  private final byte[] metaGraphDef;

  private SavedModelBundle(Graph graph, Session session, byte[] metaGraphDef) {
    this.graph = graph;
    this.session = session;
    this.metaGraphDef = metaGraphDef;
  }

  // Called by the native load() once it has a graph and a session.
  private static SavedModelBundle fromHandle(
      long graphHandle, long sessionHandle, byte[] metaGraphDef) {
    Graph graph = new Graph(graphHandle);
    Session session = new Session(graph, sessionHandle);
    return new SavedModelBundle(graph, session, metaGraphDef);
  }

  private static native SavedModelBundle load(
      String exportDir, String[] tags, byte[] config, byte[] runOptions);

  static {
    TensorFlow.init();
  }
}
