/* Stand-in written for tfbuild's test trees: NOT TensorFlow's DataType.java. */

package org.tensorflow;

import java.util.HashMap;
import java.util.Map;
import org.tensorflow.types.UInt8;

/** Types of the elements of a {@link Tensor}, numbered as in the C API (TF_DataType). */
public enum DataType {
  /** 32-bit single precision floating point. */
  FLOAT(1, 4),

  /** 64-bit double precision floating point. */
  DOUBLE(2, 8),

  /** 32-bit signed integer. */
  INT32(3, 4),

  /** 8-bit unsigned integer. */
  UINT8(4, 1),

  /** A sequence of bytes (TensorFlow's "string"). */
  STRING(7, -1),

  /** 64-bit signed integer. */
  INT64(9, 8),

  /** Boolean. */
  BOOL(10, 1);

  private final int value;
  private final int byteSize;

  DataType(int value, int byteSize) {
    this.value = value;
    this.byteSize = byteSize;
  }

  /** The size of one element in bytes; -1 for variable-length types (STRING). */
  int byteSize() {
    return byteSize;
  }

  /** The TF_DataType code of this type. */
  int c() {
    return value;
  }

  private static final DataType[] VALUES = values();

  static DataType fromC(int c) {
    for (DataType t : VALUES) {
      if (t.value == c) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "DataType " + c + " is not recognized in Java (version " + TensorFlow.version() + ")");
  }

  private static final Map<Class<?>, DataType> BY_CLASS = new HashMap<Class<?>, DataType>();

  static {
    BY_CLASS.put(Float.class, FLOAT);
    BY_CLASS.put(Double.class, DOUBLE);
    BY_CLASS.put(Integer.class, INT32);
    BY_CLASS.put(UInt8.class, UINT8);
    BY_CLASS.put(Long.class, INT64);
    BY_CLASS.put(Boolean.class, BOOL);
    BY_CLASS.put(String.class, STRING);
  }

  /** The DataType of tensors whose elements the class {@code c} stands for. */
  static DataType fromClass(Class<?> c) {
    DataType dtype = BY_CLASS.get(c);
    if (dtype == null) {
      throw new IllegalArgumentException(
          c.getName() + " objects cannot be used as elements in a TensorFlow Tensor");
    }
    return dtype;
  }
}
