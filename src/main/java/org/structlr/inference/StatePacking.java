package org.structlr.inference;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Packs an engine's state arrays into one float[] and back, bit for bit ({@link MessagePassing#state()}).
 * FLOAT arrays are copied as they are. A DOUBLE value is carried by two floats holding the high and
 * low 32 bits of its IEEE pattern ({@link Float#intBitsToFloat}); those floats are only a container:
 * store them by their raw bits ({@link Float#floatToRawIntBits}), not as numbers.
 */
public final class StatePacking {
    private StatePacking() {}

    /** Plain doubles, two floats each (the raw bits of the high and low halves), as {@link #pack} does for DOUBLE arrays. */
    public static float[] packDoubles(double[]... parts) {
        long n = 0;
        for (double[] p : parts) n += 2L * p.length;
        if (n > Integer.MAX_VALUE) throw new IllegalStateException("state of " + n + " floats does not fit one array");
        float[] out = new float[(int) n];
        int at = 0;
        for (double[] p : parts) {
            for (double d : p) {
                long bits = Double.doubleToRawLongBits(d);
                out[at++] = Float.intBitsToFloat((int) (bits >>> 32));
                out[at++] = Float.intBitsToFloat((int) bits);
            }
        }
        return out;
    }

    /** The doubles {@link #packDoubles} packed from {@code count} values starting at value {@code from}. */
    public static double[] unpackDoubles(float[] state, int from, int count) {
        double[] d = new double[count];
        for (int i = 0, at = 2 * from; i < count; i++, at += 2) {
            long hi = Float.floatToRawIntBits(state[at]) & 0xffffffffL, lo = Float.floatToRawIntBits(state[at + 1]) & 0xffffffffL;
            d[i] = Double.longBitsToDouble(hi << 32 | lo);
        }
        return d;
    }

    public static long floats(DataType dtype, INDArray... parts) {
        long n = 0;
        for (INDArray p : parts) n += p.length();
        return dtype == DataType.DOUBLE ? 2 * n : n;
    }

    public static float[] pack(DataType dtype, INDArray... parts) {
        long total = floats(dtype, parts);
        if (total > Integer.MAX_VALUE) throw new IllegalStateException("state of " + total + " floats does not fit one array");
        float[] out = new float[(int) total];
        int at = 0;
        for (INDArray p : parts) {
            if (p.length() == 0) continue;
            if (dtype == DataType.FLOAT) {
                float[] f = p.dup('c').data().asFloat();
                System.arraycopy(f, 0, out, at, f.length);
                at += f.length;
            } else {
                for (double d : p.dup('c').data().asDouble()) {
                    long bits = Double.doubleToRawLongBits(d);
                    out[at++] = Float.intBitsToFloat((int) (bits >>> 32));
                    out[at++] = Float.intBitsToFloat((int) bits);
                }
            }
        }
        return out;
    }

    public static void unpack(float[] state, DataType dtype, INDArray... parts) {
        long need = floats(dtype, parts);
        if (state == null || state.length != need) {
            throw new IllegalArgumentException("state of " + (state == null ? "null" : state.length + " floats") + ", this engine holds " + need);
        }
        int at = 0;
        for (INDArray p : parts) {
            int len = (int) p.length();
            if (len == 0) continue;
            INDArray src;
            if (dtype == DataType.FLOAT) {
                src = Nd4j.createFromArray(java.util.Arrays.copyOfRange(state, at, at + len));
                at += len;
            } else {
                double[] d = new double[len];
                for (int i = 0; i < len; i++, at += 2) {
                    long hi = Float.floatToRawIntBits(state[at]) & 0xffffffffL, lo = Float.floatToRawIntBits(state[at + 1]) & 0xffffffffL;
                    d[i] = Double.longBitsToDouble(hi << 32 | lo);
                }
                src = Nd4j.createFromArray(d);
            }
            p.assign(src.reshape(p.shape()));
        }
    }
}
