/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Classifier.java. */

package org.tensorflow.demo;

import android.graphics.Bitmap;
import android.graphics.RectF;
import java.util.List;

/** What the demo's recognizers have in common: a Bitmap in, scored results out. */
public interface Classifier {
  /** A result: what was recognized, how confidently, and (detectors) where. */
  public class Recognition {
    /** An identifier of what was recognized (the class, not the instance). */
    private final String id;

    /** A displayable name. */
    private final String title;

    /** How good the recognition is, higher is better. */
    private final Float confidence;

    /** Where in the image, for detectors; may be null. */
    private RectF location;

    public Recognition(
        final String id, final String title, final Float confidence, final RectF location) {
      this.id = id;
      this.title = title;
      this.confidence = confidence;
      this.location = location;
    }

    public String getId() {
      return id;
    }

    public String getTitle() {
      return title;
    }

    public Float getConfidence() {
      return confidence;
    }

    public RectF getLocation() {
      return new RectF(location);
    }

    public void setLocation(RectF location) {
      this.location = location;
    }

    @Override
    public String toString() {
      String text = "";
      if (id != null) {
        text += "[" + id + "] ";
      }
      if (title != null) {
        text += title + " ";
      }
      if (confidence != null) {
        text += String.format("(%.1f%%) ", confidence * 100.0f);
      }
      if (location != null) {
        text += location + " ";
      }
      return text.trim();
    }
  }

  List<Recognition> recognizeImage(Bitmap bitmap);

  void enableStatLogging(final boolean debug);

  String getStatString();

  void close();
}
