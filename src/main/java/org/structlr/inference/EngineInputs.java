package org.structlr.inference;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.executioner.OpExecutioner;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.BooleanIndexing;
import org.nd4j.linalg.indexing.conditions.Conditions;

/**
 * The one check of what every engine is given ({@link MessagePassing}'s conventions): potentials
 * {@code [V, L]} and {@code [E, L*L]}, messages {@code [E, 2, L]}, each entry finite or minus
 * infinity (a hard constraint), padding included; NaN and plus infinity are refused with one
 * wording, naming the first bad entry. The values are checked by two reductions on the array where
 * it lives (the device, on CUDA), so a valid input costs no copy to the host; only a refused one is
 * copied, to name the entry.
 */
public final class EngineInputs {
    private EngineInputs() {}

    /** Refuses unary ({@code what} = "unary", {@code [V, L]}) or pairwise ("pairwise", {@code [E, L*L]}) potentials. */
    public static void checkPotentials(String what, INDArray a, long rows, long cols) {
        if (rows == 0 && (a == null || a.length() == 0)) return;   // no factors of this kind: nothing to read
        if (a == null) throw new IllegalArgumentException(what + " potentials are null");
        if (a.rank() != 2 || a.size(0) != rows || a.size(1) != cols) {
            throw new IllegalArgumentException(what + " potentials must have shape [" + rows + ", " + cols + "], got " + Arrays.toString(a.shape()));
        }
        long bad = firstRefused(a);
        if (bad >= 0) {
            throw new IllegalArgumentException(what + " potential [" + bad / cols + ", " + bad % cols + "] is " + valueAt(a, bad)
                    + "; only finite values and minus infinity are allowed");
        }
    }

    /**
     * The values of potentials for an engine that works on the host (the fused CPU engine), checked
     * as {@link #checkPotentials} does, with its wording, but on the host copy the engine needs
     * anyway (one copy, no device reductions): float arrays as floats ({@code floats}), other types
     * as doubles ({@code doubles}, the other null), row-major.
     */
    public static HostValues potentialsOnHost(String what, INDArray a, long rows, long cols) {
        if (rows == 0 && (a == null || a.length() == 0)) return new HostValues(new float[0], null);
        if (a == null) throw new IllegalArgumentException(what + " potentials are null");
        if (a.rank() != 2 || a.size(0) != rows || a.size(1) != cols) {
            throw new IllegalArgumentException(what + " potentials must have shape [" + rows + ", " + cols + "], got " + Arrays.toString(a.shape()));
        }
        if (a.dataType() == DataType.FLOAT) {
            // a c-ordered array that owns its buffer is read in one copy; anything else is laid out first
            boolean whole = a.ordering() == 'c' && !a.isView() && a.data().length() == a.length();
            float[] f = hostFloats(whole ? a : a.dup('c'));
            for (int i = 0; i < f.length; i++) {
                if (!(f[i] < Float.POSITIVE_INFINITY) && f[i] != Float.NEGATIVE_INFINITY) refuse(what, i, cols, f[i]);   // NaN or plus infinity
            }
            return new HostValues(f, null);
        }
        double[] d = a.dup('c').castTo(DataType.DOUBLE).data().asDouble();
        for (int i = 0; i < d.length; i++) {
            if (Double.isNaN(d[i]) || d[i] == Double.POSITIVE_INFINITY) refuse(what, i, cols, d[i]);
        }
        return new HostValues(null, d);
    }

    private static void refuse(String what, int i, long cols, double x) {
        throw new IllegalArgumentException(what + " potential [" + i / cols + ", " + i % cols + "] is " + x
                + "; only finite values and minus infinity are allowed");
    }

    /**
     * The floats of a c-ordered float array that owns its whole buffer: on the CPU backend one bulk
     * copy from the native buffer (ND4J's {@code asFloat()} reads entry by entry through its
     * indexer: a fifth of the fused engine's {@code setPotentials} on the demo, JFR), elsewhere
     * {@code asFloat()} (which brings a device buffer to the host first).
     */
    private static float[] hostFloats(INDArray whole) {
        if (Nd4j.getExecutioner().type() == OpExecutioner.ExecutionerType.CUDA) return whole.data().asFloat();
        float[] out = new float[(int) whole.length()];
        whole.data().asNioFloat().get(out);
        return out;
    }

    /** Host values of {@link #potentialsOnHost}: exactly one of the two arrays is set. */
    public record HostValues(float[] floats, double[] doubles) {
        public int length() {
            return floats != null ? floats.length : doubles.length;
        }

        /** Entry {@code i} in double (exact for floats). */
        public double at(int i) {
            return floats != null ? floats[i] : doubles[i];
        }
    }

    /** Refuses messages that are not {@code [E, 2, L]} of finite values or minus infinity. */
    public static void checkMessages(INDArray m, long edges, long labels) {
        if (m == null || m.rank() != 3 || m.size(0) != edges || m.size(1) != 2 || m.size(2) != labels) {
            throw new IllegalArgumentException("messages must have shape [" + edges + ", 2, " + labels + "], got "
                    + (m == null ? "null" : Arrays.toString(m.shape())));
        }
        long bad = firstRefused(m);
        if (bad >= 0) {
            throw new IllegalArgumentException("message [" + bad / (2 * labels) + ", " + bad / labels % 2 + ", " + bad % labels + "] is "
                    + valueAt(m, bad) + "; only finite values and minus infinity are allowed");
        }
    }

    /** Refuses region tables ({@code entries} entries, any shape: {@code FactorGraph.totalRegionEntries}) holding NaN or plus infinity. */
    public static void checkRegionPotentials(INDArray a, long entries) {
        if (a == null || a.length() != entries) {
            throw new IllegalArgumentException("region potentials must have " + entries + " entries, got "
                    + (a == null ? "null" : Arrays.toString(a.shape())));
        }
        long bad = firstRefused(a);
        if (bad >= 0) {
            throw new IllegalArgumentException("region potential entry " + bad + " is " + valueAt(a, bad)
                    + "; only finite values and minus infinity are allowed");
        }
    }

    /** Refuses region messages that are not {@code [slots, labels]} of finite values or minus infinity. */
    public static void checkRegionMessages(INDArray m, long slots, long labels) {
        if (m == null || m.rank() != 2 || m.size(0) != slots || m.size(1) != labels) {
            throw new IllegalArgumentException("region messages must have shape [" + slots + ", " + labels + "], got "
                    + (m == null ? "null" : Arrays.toString(m.shape())));
        }
        long bad = firstRefused(m);
        if (bad >= 0) {
            throw new IllegalArgumentException("region message [" + bad / labels + ", " + bad % labels + "] is " + valueAt(m, bad)
                    + "; only finite values and minus infinity are allowed");
        }
    }

    /** Row-major index of the first NaN or plus infinity, or -1: a device-side test first, the host search only on failure. */
    static long firstRefused(INDArray a) {
        if (a.isEmpty() || !hasNanOrPlusInfinity(a)) return -1;
        double[] v = a.dup('c').castTo(DataType.DOUBLE).data().asDouble();
        for (int i = 0; i < v.length; i++) if (Double.isNaN(v[i]) || v[i] == Double.POSITIVE_INFINITY) return i;
        throw new IllegalStateException("a NaN or plus infinity was found on the device but not on the host");
    }

    /** NaN or plus infinity anywhere: two reductions (match conditions), a boolean each to the host. */
    static boolean hasNanOrPlusInfinity(INDArray a) {
        INDArray x = a.dataType() == DataType.DOUBLE || a.dataType() == DataType.FLOAT ? a : a.castTo(DataType.FLOAT);
        if (BooleanIndexing.or(x, Conditions.isNan())) return true;
        // plus infinity is what exceeds the largest finite value of the array's type
        return BooleanIndexing.or(x, Conditions.greaterThan(x.dataType() == DataType.DOUBLE ? Double.MAX_VALUE : Float.MAX_VALUE));
    }

    private static double valueAt(INDArray a, long flatIndex) {
        return a.dup('c').reshape(-1).getDouble(flatIndex);
    }
}
