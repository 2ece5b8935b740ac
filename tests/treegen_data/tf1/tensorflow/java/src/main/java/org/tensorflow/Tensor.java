/* Stand-in written for tfbuild's test trees: NOT TensorFlow's Tensor.java. */

package org.tensorflow;

import java.lang.reflect.Array;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A multi-dimensional array whose elements are of the type {@code T} stands for (Float, Integer,
 * Long, Double, Boolean, UInt8 or String for byte sequences).
 *
 * <p>Instances are not thread-safe. A Tensor holds native memory: {@link #close()} it when done,
 * for example with try-with-resources.
 */
public final class Tensor<T> implements AutoCloseable {

  /**
   * A tensor of the Java object {@code obj}: a primitive (float, double, int, long, boolean, byte)
   * or a multi-dimensional array of one; byte[] elements for {@code type} String.
   *
   * @throws IllegalArgumentException if {@code obj} does not fit {@code type}.
   */
  @SuppressWarnings("unchecked")
  public static <T> Tensor<T> create(Object obj, Class<T> type) {
    DataType dtype = DataType.fromClass(type);
    if (!objectCompatWithType(obj, dtype)) {
      throw new IllegalArgumentException(
          "DataType of object does not match T (expected " + dtype + ", got " + dataTypeOf(obj) + ")");
    }
    return (Tensor<T>) create(obj, dtype);
  }

  /** A tensor of the Java object {@code obj}, typed by what its class stands for. */
  public static Tensor<?> create(Object obj) {
    return create(obj, dataTypeOf(obj));
  }

  private static Tensor<?> create(Object obj, DataType dtype) {
    @SuppressWarnings("rawtypes")
    Tensor<?> t = new Tensor(dtype);
    t.shapeCopy = new long[numDimensions(obj, dtype)];
    fillShape(obj, 0, t.shapeCopy);
    if (t.dtype != DataType.STRING) {
      int byteSize = elemByteSize(t.dtype) * numElements(t.shapeCopy);
      t.nativeHandle = allocate(t.dtype.c(), t.shapeCopy, byteSize);
      setValue(t.nativeHandle, obj);
    } else if (t.shapeCopy.length != 0) {
      t.nativeHandle = allocateNonScalarBytes(t.shapeCopy, (Object[]) obj);
    } else {
      t.nativeHandle = allocateScalarBytes((byte[]) obj);
    }
    return t;
  }

  /** An Integer tensor of {@code shape}, its elements copied from {@code data}'s remaining ones. */
  public static Tensor<Integer> create(long[] shape, IntBuffer data) {
    Tensor<Integer> t = allocateForBuffer(DataType.INT32, shape, data.remaining());
    t.buffer().asIntBuffer().put(data);
    return t;
  }

  /** A Float tensor of {@code shape}, its elements copied from {@code data}'s remaining ones. */
  public static Tensor<Float> create(long[] shape, FloatBuffer data) {
    Tensor<Float> t = allocateForBuffer(DataType.FLOAT, shape, data.remaining());
    t.buffer().asFloatBuffer().put(data);
    return t;
  }

  /** A Double tensor of {@code shape}, its elements copied from {@code data}'s remaining ones. */
  public static Tensor<Double> create(long[] shape, DoubleBuffer data) {
    Tensor<Double> t = allocateForBuffer(DataType.DOUBLE, shape, data.remaining());
    t.buffer().asDoubleBuffer().put(data);
    return t;
  }

  /** A Long tensor of {@code shape}, its elements copied from {@code data}'s remaining ones. */
  public static Tensor<Long> create(long[] shape, LongBuffer data) {
    Tensor<Long> t = allocateForBuffer(DataType.INT64, shape, data.remaining());
    t.buffer().asLongBuffer().put(data);
    return t;
  }

  /**
   * A tensor of {@code type} and {@code shape} whose bytes are {@code data}'s remaining ones,
   * encoded as the C API lays them out.
   *
   * @throws IllegalArgumentException if the bytes do not fit the type and shape.
   */
  public static <T> Tensor<T> create(Class<T> type, long[] shape, ByteBuffer data) {
    @SuppressWarnings("unchecked")
    Tensor<T> ret = (Tensor<T>) create(DataType.fromClass(type), shape, data);
    return ret;
  }

  private static Tensor<?> create(DataType dtype, long[] shape, ByteBuffer data) {
    int nremaining;
    if (dtype != DataType.STRING) {
      int elemBytes = elemByteSize(dtype);
      if (data.remaining() % elemBytes != 0) {
        throw new IllegalArgumentException(
            String.format(
                "ByteBuffer with %d bytes is not compatible with a %s Tensor (%d bytes/element)",
                data.remaining(), dtype.toString(), elemBytes));
      }
      nremaining = data.remaining() / elemBytes;
    } else {
      nremaining = data.remaining();
    }
    Tensor<?> t = allocateForBuffer(dtype, shape, nremaining);
    t.buffer().put(data);
    return t;
  }

  /**
   * This tensor as a {@code Tensor<U>}.
   *
   * @throws IllegalArgumentException if its data type is not the one {@code U} stands for.
   */
  @SuppressWarnings("unchecked")
  public <U> Tensor<U> expect(Class<U> type) {
    DataType dt = DataType.fromClass(type);
    if (!dt.equals(dtype)) {
      throw new IllegalArgumentException(
          "Cannot cast from tensor of " + dtype + " to tensor of " + dt);
    }
    return ((Tensor<U>) this);
  }

  private static <T> Tensor<T> allocateForBuffer(DataType dataType, long[] shape, int nBuffered) {
    final int nflattened = numElements(shape);
    int nbytes;
    if (dataType != DataType.STRING) {
      if (nBuffered != nflattened) {
        throw incompatibleBuffer(nBuffered, shape);
      }
      nbytes = nflattened * elemByteSize(dataType);
    } else {
      nbytes = nBuffered;
    }
    Tensor<T> t = new Tensor<T>(dataType);
    t.shapeCopy = Arrays.copyOf(shape, shape.length);
    t.nativeHandle = allocate(t.dtype.c(), t.shapeCopy, nbytes);
    return t;
  }

  /** Releases the tensor's native memory; the Tensor is not usable afterwards. */
  @Override
  public void close() {
    if (nativeHandle != 0) {
      delete(nativeHandle);
      nativeHandle = 0;
    }
  }

  /** The type of the tensor's elements. */
  public DataType dataType() {
    return dtype;
  }

  /** The number of dimensions: 0 for a scalar, 1 for a vector, 2 for a matrix... */
  public int numDimensions() {
    return shapeCopy.length;
  }

  /** The size of the tensor's data, in bytes. */
  public int numBytes() {
    return buffer().remaining();
  }

  /** The number of elements (of a flattened view of the tensor). */
  public int numElements() {
    return numElements(shapeCopy);
  }

  /** The sizes of the tensor's dimensions. */
  public long[] shape() {
    return shapeCopy;
  }

  /** The value of a scalar Float tensor. */
  public float floatValue() {
    return scalarFloat(nativeHandle);
  }

  /** The value of a scalar Double tensor. */
  public double doubleValue() {
    return scalarDouble(nativeHandle);
  }

  /** The value of a scalar Integer tensor. */
  public int intValue() {
    return scalarInt(nativeHandle);
  }

  /** The value of a scalar Long tensor. */
  public long longValue() {
    return scalarLong(nativeHandle);
  }

  /** The value of a scalar Boolean tensor. */
  public boolean booleanValue() {
    return scalarBoolean(nativeHandle);
  }

  /** The value of a scalar String tensor. */
  public byte[] bytesValue() {
    return scalarBytes(nativeHandle);
  }

  /**
   * Copies the elements of a non-scalar tensor into the Java array {@code dst}, of the tensor's
   * shape and element type, and returns it.
   *
   * @throws IllegalArgumentException if the tensor is a scalar or {@code dst} does not fit it.
   */
  public <U> U copyTo(U dst) {
    throwExceptionIfTypeIsIncompatible(dst);
    readNDArray(nativeHandle, dst);
    return dst;
  }

  /** Writes the elements of an Integer tensor into {@code dst}. */
  public void writeTo(IntBuffer dst) {
    if (dtype != DataType.INT32) {
      throw incompatibleBuffer(dst, dtype);
    }
    dst.put(buffer().asIntBuffer());
  }

  /** Writes the elements of a Float tensor into {@code dst}. */
  public void writeTo(FloatBuffer dst) {
    if (dtype != DataType.FLOAT) {
      throw incompatibleBuffer(dst, dtype);
    }
    dst.put(buffer().asFloatBuffer());
  }

  /** Writes the elements of a Double tensor into {@code dst}. */
  public void writeTo(DoubleBuffer dst) {
    if (dtype != DataType.DOUBLE) {
      throw incompatibleBuffer(dst, dtype);
    }
    dst.put(buffer().asDoubleBuffer());
  }

  /** Writes the elements of a Long tensor into {@code dst}. */
  public void writeTo(LongBuffer dst) {
    if (dtype != DataType.INT64) {
      throw incompatibleBuffer(dst, dtype);
    }
    dst.put(buffer().asLongBuffer());
  }

  /** Writes the tensor's bytes into {@code dst}, in the host's byte order. */
  public void writeTo(ByteBuffer dst) {
    dst.put(buffer());
  }

  /** The tensor's type and shape. */
  @Override
  public String toString() {
    return String.format("%s tensor with shape %s", dtype.toString(), Arrays.toString(shape()));
  }

  /** A Tensor for a native TF_Tensor handle, which it takes over. */
  static Tensor<?> fromHandle(long handle) {
    @SuppressWarnings("rawtypes")
    Tensor<?> t = new Tensor(DataType.fromC(dtype(handle)));
    t.shapeCopy = shape(handle);
    t.nativeHandle = handle;
    return t;
  }

  long getNativeHandle() {
    return nativeHandle;
  }

  private long nativeHandle;
  private final DataType dtype;
  private long[] shapeCopy = null;

  private Tensor(DataType t) {
    dtype = t;
  }

  private ByteBuffer buffer() {
    return buffer(nativeHandle).order(ByteOrder.nativeOrder());
  }

  private static IllegalArgumentException incompatibleBuffer(Buffer buf, DataType dataType) {
    return new IllegalArgumentException(
        String.format("cannot use %s with Tensor of type %s", buf.getClass().getName(), dataType));
  }

  private static IllegalArgumentException incompatibleBuffer(int numElements, long[] shape) {
    return new IllegalArgumentException(
        String.format(
            "buffer with %d elements is not compatible with a Tensor with shape %s",
            numElements, Arrays.toString(shape)));
  }

  private static int numElements(long[] shape) {
    int n = 1;
    for (long size : shape) {
      n *= (int) size;
    }
    return n;
  }

  private static int elemByteSize(DataType dataType) {
    int size = dataType.byteSize();
    if (size < 0) {
      throw new IllegalArgumentException("STRING tensors do not have a fixed element size");
    }
    return size;
  }

  private static final Map<Class<?>, DataType> CLASS_DATA_TYPES =
      new HashMap<Class<?>, DataType>();

  static {
    CLASS_DATA_TYPES.put(int.class, DataType.INT32);
    CLASS_DATA_TYPES.put(Integer.class, DataType.INT32);
    CLASS_DATA_TYPES.put(long.class, DataType.INT64);
    CLASS_DATA_TYPES.put(Long.class, DataType.INT64);
    CLASS_DATA_TYPES.put(float.class, DataType.FLOAT);
    CLASS_DATA_TYPES.put(Float.class, DataType.FLOAT);
    CLASS_DATA_TYPES.put(double.class, DataType.DOUBLE);
    CLASS_DATA_TYPES.put(Double.class, DataType.DOUBLE);
    CLASS_DATA_TYPES.put(byte.class, DataType.STRING);
    CLASS_DATA_TYPES.put(Byte.class, DataType.STRING);
    CLASS_DATA_TYPES.put(boolean.class, DataType.BOOL);
    CLASS_DATA_TYPES.put(Boolean.class, DataType.BOOL);
  }

  // The class of the innermost elements of `o`.
  private static Class<?> baseObjType(Object o) {
    Class<?> c = o.getClass();
    while (c.isArray()) {
      c = c.getComponentType();
    }
    return c;
  }

  // The data type `o` stands for by default: byte means STRING (byte[] is one string).
  private static DataType dataTypeOf(Object o) {
    Class<?> c = baseObjType(o);
    DataType ret = CLASS_DATA_TYPES.get(c);
    if (ret == null) {
      throw new IllegalArgumentException("cannot create Tensors of type " + c.getName());
    }
    return ret;
  }

  // The rank of the tensor `o` stands for: one less than its array depth for strings.
  private static int numDimensions(Object o, DataType dtype) {
    int depth = 0;
    for (Class<?> c = o.getClass(); c.isArray(); c = c.getComponentType()) {
      depth++;
    }
    return (dtype == DataType.STRING && depth > 0) ? depth - 1 : depth;
  }

  private static void fillShape(Object o, int dim, long[] shape) {
    if (shape == null || dim == shape.length) {
      return;
    }
    final int len = Array.getLength(o);
    if (len == 0) {
      throw new IllegalArgumentException("cannot create Tensors with a 0 dimension");
    }
    if (shape[dim] == 0) {
      shape[dim] = len;
    } else if (shape[dim] != len) {
      throw new IllegalArgumentException(
          String.format("mismatched lengths (%d and %d) in dimension %d", shape[dim], len, dim));
    }
    for (int i = 0; i < len; ++i) {
      fillShape(Array.get(o, i), dim + 1, shape);
    }
  }

  private static boolean objectCompatWithType(Object obj, DataType dtype) {
    Class<?> c = baseObjType(obj);
    DataType dto = dataTypeOf(obj);
    if (!c.isPrimitive() && numDimensions(obj, dto) != 0) {
      throw new IllegalArgumentException(
          "cannot create non-scalar Tensors from arrays of boxed values");
    }
    return dto.equals(dtype) || (dto == DataType.STRING && dtype == DataType.UINT8);
  }

  private void throwExceptionIfTypeIsIncompatible(Object o) {
    final int rank = numDimensions();
    final int oRank = numDimensions(o, dtype);
    if (oRank != rank) {
      throw new IllegalArgumentException(
          String.format("cannot copy Tensor with %d dimensions into an object with %d", rank, oRank));
    }
    if (!objectCompatWithType(o, dtype)) {
      throw new IllegalArgumentException(
          String.format(
              "cannot copy Tensor with DataType %s into an object of type %s",
              dtype.toString(), o.getClass().getName()));
    }
    long[] oShape = new long[rank];
    fillShape(o, 0, oShape);
    for (int i = 0; i < oShape.length; ++i) {
      if (oShape[i] != shape()[i]) {
        throw new IllegalArgumentException(
            String.format(
                "cannot copy Tensor with shape %s into object with shape %s",
                Arrays.toString(shape()), Arrays.toString(oShape)));
      }
    }
  }

  private static native long allocate(int dtype, long[] shape, long byteSize);

  private static native long allocateScalarBytes(byte[] value);

  private static native long allocateNonScalarBytes(long[] shape, Object[] value);

  private static native void delete(long handle);

  private static native ByteBuffer buffer(long handle);

  private static native int dtype(long handle);

  private static native long[] shape(long handle);

  private static native void setValue(long handle, Object value);

  private static native float scalarFloat(long handle);

  private static native double scalarDouble(long handle);

  private static native int scalarInt(long handle);

  private static native long scalarLong(long handle);

  private static native boolean scalarBoolean(long handle);

  private static native byte[] scalarBytes(long handle);

  private static native void readNDArray(long handle, Object value);

  static {
    TensorFlow.init();
  }
}
