package org.structlr.data;

import java.util.Arrays;
import java.util.Objects;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * One NumPy array as read from or written to a {@code .npy} entry: a shape, a dtype and the
 * elements in C (row-major) order in a primitive Java array. Immutable: factories copy their
 * input and accessors return copies.
 *
 * <p>Element storage by dtype: {@code float32 -> float[]}, {@code float64 -> double[]},
 * {@code int32 -> int[]}, {@code int64 -> long[]}, {@code uint8 -> byte[]} (read back as 0..255),
 * {@code bool -> boolean[]}. A scalar has shape {@code []} and one element.
 */
public final class NpyArray {

    /** The dtypes this project reads and writes; {@link #code} is NumPy's kind + item size. */
    public enum DType {
        FLOAT32("f4", 4), FLOAT64("f8", 8), INT32("i4", 4), INT64("i8", 8), UINT8("u1", 1), BOOL("b1", 1);

        private final String code;
        private final int itemSize;

        DType(String code, int itemSize) {
            this.code = code;
            this.itemSize = itemSize;
        }

        /** NumPy's type code without byte order, e.g. {@code "f4"}. */
        public String code() { return code; }
        public int itemSize() { return itemSize; }
        public boolean isFloating() { return this == FLOAT32 || this == FLOAT64; }
        public boolean isInteger() { return this == INT32 || this == INT64 || this == UINT8; }

        /** The dtype for a NumPy code such as {@code "f4"}, or null when unsupported. */
        public static DType ofCode(String code) {
            for (DType d : values()) if (d.code.equals(code)) return d;
            return null;
        }
    }

    /** Largest element count a Java array holds safely. */
    static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    private final long[] shape;
    private final DType dtype;
    private final Object data;

    private NpyArray(long[] shape, DType dtype, Object data) {
        this.shape = shape;
        this.dtype = dtype;
        this.data = data;
    }

    private static NpyArray make(long[] shape, DType dtype, Object data, int length) {
        long[] s = shape.clone();
        long n = elementCount(s);
        if (n != length) {
            throw new IllegalArgumentException("shape " + Arrays.toString(s) + " holds " + n + " elements but " + length + " were given");
        }
        return new NpyArray(s, dtype, data);
    }

    /**
     * The number of elements of a shape; throws on negative dimensions or more elements than a
     * Java array holds.
     */
    public static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape));
            if (d != 0 && n > MAX_ELEMENTS / d) {
                throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " has more than " + MAX_ELEMENTS + " elements");
            }
            n *= d;
        }
        return n;
    }

    public static NpyArray ofFloats(float[] data, long... shape) { return make(shape, DType.FLOAT32, data.clone(), data.length); }
    public static NpyArray ofDoubles(double[] data, long... shape) { return make(shape, DType.FLOAT64, data.clone(), data.length); }
    public static NpyArray ofInts(int[] data, long... shape) { return make(shape, DType.INT32, data.clone(), data.length); }
    public static NpyArray ofLongs(long[] data, long... shape) { return make(shape, DType.INT64, data.clone(), data.length); }
    /** uint8 elements given as raw bytes (so {@code (byte) 255} is 255). */
    public static NpyArray ofUint8(byte[] data, long... shape) { return make(shape, DType.UINT8, data.clone(), data.length); }
    public static NpyArray ofBools(boolean[] data, long... shape) { return make(shape, DType.BOOL, data.clone(), data.length); }

    public static NpyArray scalarInt(int value) { return ofInts(new int[] {value}); }
    public static NpyArray scalarLong(long value) { return ofLongs(new long[] {value}); }
    public static NpyArray scalarFloat(float value) { return ofFloats(new float[] {value}); }
    public static NpyArray scalarDouble(double value) { return ofDoubles(new double[] {value}); }

    /** Wraps an already private array without copying (used by the reader). */
    static NpyArray wrap(long[] shape, DType dtype, Object data) {
        int len = java.lang.reflect.Array.getLength(data);
        return make(shape, dtype, data, len);
    }

    public long[] shape() { return shape.clone(); }
    public int ndim() { return shape.length; }
    public long dim(int axis) { return shape[axis]; }
    public DType dtype() { return dtype; }
    public boolean isScalar() { return shape.length == 0; }

    /** Number of elements (1 for a scalar). */
    public int size() { return java.lang.reflect.Array.getLength(data); }

    /** Element {@code i} (C order) as a double; exact for every dtype except int64 beyond 2^53. */
    public double getDouble(int i) {
        switch (dtype) {
            case FLOAT32: return ((float[]) data)[i];
            case FLOAT64: return ((double[]) data)[i];
            case INT32: return ((int[]) data)[i];
            case INT64: return ((long[]) data)[i];
            case UINT8: return ((byte[]) data)[i] & 0xFF;
            case BOOL: return ((boolean[]) data)[i] ? 1 : 0;
            default: throw new AssertionError(dtype);
        }
    }

    /** Element {@code i} (C order) as a long; floating values are truncated toward zero. */
    public long getLong(int i) {
        switch (dtype) {
            case FLOAT32: return (long) ((float[]) data)[i];
            case FLOAT64: return (long) ((double[]) data)[i];
            case INT32: return ((int[]) data)[i];
            case INT64: return ((long[]) data)[i];
            case UINT8: return ((byte[]) data)[i] & 0xFF;
            case BOOL: return ((boolean[]) data)[i] ? 1 : 0;
            default: throw new AssertionError(dtype);
        }
    }

    /** The elements as floats (a copy; float64 values are rounded to the nearest float). */
    public float[] toFloatArray() {
        if (dtype == DType.FLOAT32) return ((float[]) data).clone();
        float[] out = new float[size()];
        for (int i = 0; i < out.length; i++) out[i] = (float) getDouble(i);
        return out;
    }

    /** The elements as doubles (a copy). */
    public double[] toDoubleArray() {
        if (dtype == DType.FLOAT64) return ((double[]) data).clone();
        double[] out = new double[size()];
        for (int i = 0; i < out.length; i++) out[i] = getDouble(i);
        return out;
    }

    /** The elements as longs (a copy); only for integer and bool dtypes. */
    public long[] toLongArray() {
        if (dtype.isFloating()) throw new IllegalStateException("a " + dtype + " array has no exact integer values");
        long[] out = new long[size()];
        for (int i = 0; i < out.length; i++) out[i] = getLong(i);
        return out;
    }

    /**
     * The elements as ints (a copy); only for integer and bool dtypes.
     *
     * @throws ArithmeticException when an int64 element does not fit an int
     */
    public int[] toIntArray() {
        if (dtype == DType.INT32) return ((int[]) data).clone();
        long[] l = toLongArray();
        int[] out = new int[l.length];
        for (int i = 0; i < l.length; i++) out[i] = Math.toIntExact(l[i]);
        return out;
    }

    /** The raw primitive array, not copied: package use only (the writer). */
    Object rawData() { return data; }

    /** An ND4J array of the same shape, values and (matching) data type, in C order. */
    public INDArray toINDArray() {
        switch (dtype) {
            case FLOAT32: return Nd4j.create((float[]) data, shape, DataType.FLOAT);
            case FLOAT64: return Nd4j.create((double[]) data, shape, DataType.DOUBLE);
            case INT32: return Nd4j.create((int[]) data, shape, DataType.INT);
            case INT64: return Nd4j.create((long[]) data, shape, DataType.LONG);
            case UINT8: return Nd4j.create((byte[]) data, shape, DataType.UBYTE);
            case BOOL: return Nd4j.create((boolean[]) data, shape, DataType.BOOL);
            default: throw new AssertionError(dtype);
        }
    }

    /**
     * Copies an ND4J array (any order or view) in C order. Supported data types: FLOAT, DOUBLE,
     * INT, LONG, UBYTE, BOOL; others throw {@link IllegalArgumentException}.
     */
    public static NpyArray fromINDArray(INDArray a) {
        long[] s = a.shape();
        INDArray c = a.isView() || a.ordering() != 'c' ? a.dup('c') : a;
        switch (a.dataType()) {
            case FLOAT: return wrap(s, DType.FLOAT32, c.data().asFloat());
            case DOUBLE: return wrap(s, DType.FLOAT64, c.data().asDouble());
            case INT: return wrap(s, DType.INT32, c.data().asInt());
            case LONG: return wrap(s, DType.INT64, c.data().asLong());
            case UBYTE: {
                int[] v = c.data().asInt();
                byte[] b = new byte[v.length];
                for (int i = 0; i < v.length; i++) b[i] = (byte) v[i];
                return wrap(s, DType.UINT8, b);
            }
            case BOOL: {
                int[] v = c.data().asInt();
                boolean[] b = new boolean[v.length];
                for (int i = 0; i < v.length; i++) b[i] = v[i] != 0;
                return wrap(s, DType.BOOL, b);
            }
            default: throw new IllegalArgumentException("ND4J data type " + a.dataType() + " has no .npy counterpart here");
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NpyArray)) return false;
        NpyArray n = (NpyArray) o;
        return dtype == n.dtype && Arrays.equals(shape, n.shape) && Objects.deepEquals(data, n.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(dtype, Arrays.hashCode(shape), Arrays.deepHashCode(new Object[] {data}));
    }

    @Override
    public String toString() {
        return "NpyArray[" + dtype.code + " " + Arrays.toString(shape) + "]";
    }
}
