package android.content.res;

import java.io.IOException;
import java.io.InputStream;

/** Run-time stand-in (tfbuild verify): never opened, the runner reads the graph from a file. */
public final class AssetManager {
  private AssetManager() {}

  public InputStream open(String fileName) throws IOException {
    throw new IOException("no Android assets on this Java VM: " + fileName);
  }

  public InputStream open(String fileName, int accessMode) throws IOException {
    return open(fileName);
  }
}
