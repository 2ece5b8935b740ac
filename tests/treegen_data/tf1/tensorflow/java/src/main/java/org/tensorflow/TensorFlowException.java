/* Stand-in written for tfbuild's test trees: NOT TensorFlow's TensorFlowException.java. */

package org.tensorflow;

/** Unchecked exception thrown for a TensorFlow error that no Java exception class describes. */
public final class TensorFlowException extends RuntimeException {
  TensorFlowException(String message) {
    super(message);
  }
}
