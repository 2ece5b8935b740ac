package android.content.res;

import java.io.IOException;
import java.io.InputStream;

/** Compile-only stand-in (tfbuild): the real class is on the device. */
public final class AssetManager {
  private AssetManager() {}

  public InputStream open(String fileName) throws IOException {
    throw new UnsupportedOperationException("compile-only stand-in");
  }

  public InputStream open(String fileName, int accessMode) throws IOException {
    throw new UnsupportedOperationException("compile-only stand-in");
  }
}
