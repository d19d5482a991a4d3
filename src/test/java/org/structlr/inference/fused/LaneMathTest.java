package org.structlr.inference.fused;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.UnaryOperator;
import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

/** The lane functions against java.lang.Math, and the same bits before and after the JIT compiles them. */
class LaneMathTest {

    static float[] apply(UnaryOperator<FloatVector> f, float[] x) {
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i += LaneMath.S.length()) f.apply(FloatVector.fromArray(LaneMath.S, x, i)).intoArray(y, i);
        return y;
    }

    static float[] inputs(int n, double lo, double hi, long seed) {
        Random rnd = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) (lo + (hi - lo) * rnd.nextDouble());
        return x;
    }

    static void accurate(String what, float[] x, float[] got, java.util.function.DoubleUnaryOperator exact, double tol) {
        for (int i = 0; i < x.length; i++) {
            double want = exact.applyAsDouble(x[i]);
            assertTrue(Math.abs(got[i] - want) <= tol * Math.max(Math.abs(want), 1e-30) + 1e-45,
                    what + "(" + x[i] + ") = " + got[i] + ", exact " + want);
        }
    }

    @Test
    void matchMathToAFewUlp() {
        int n = 1 << 14;
        float[] e = inputs(n, -80, 0, 1), u = inputs(n, 0, 1, 2), p = inputs(n, 1e-20, 30, 3);
        accurate("exp", e, apply(LaneMath::expNonPositive, e), Math::exp, 3e-7);
        accurate("log1p", u, apply(LaneMath::log1pUnit, u), Math::log1p, 3e-7);
        float[] lp = apply(LaneMath::log, p);
        for (int i = 0; i < n; i++) assertEquals(Math.log(p[i]), lp[i], 3e-7 * Math.max(1, Math.abs(Math.log(p[i]))), "log(" + p[i] + ")");
        float[] edge = new float[LaneMath.S.length()];
        edge[0] = Float.NEGATIVE_INFINITY;
        edge[1] = -100f;
        edge[2] = 0f;
        float[] ex = apply(LaneMath::expNonPositive, edge);
        assertEquals(0f, ex[0]);
        assertEquals(0f, ex[1]);
        assertEquals(1f, ex[2]);
        assertEquals(0f, apply(LaneMath::log1pUnit, new float[LaneMath.S.length()])[0]);
        assertEquals(Float.NEGATIVE_INFINITY, apply(LaneMath::log, new float[LaneMath.S.length()])[0]);
    }

    /**
     * The point of the class: the first calls run in the interpreter, later ones in C2-compiled code,
     * and both give the same bits (the Vector API's EXP/LOG1P differ there in about 0.5% of lanes).
     */
    @Test
    void sameBitsColdAndCompiled() {
        float[] e = inputs(1 << 12, -80, 0, 4), u = inputs(1 << 12, 0, 1, 5), p = inputs(1 << 12, 1e-20, 30, 6);
        float[] e0 = apply(LaneMath::expNonPositive, e), u0 = apply(LaneMath::log1pUnit, u), p0 = apply(LaneMath::log, p);
        for (int k = 0; k < 3000; k++) {
            apply(LaneMath::expNonPositive, e);
            apply(LaneMath::log1pUnit, u);
            apply(LaneMath::log, p);
        }
        assertArrayEquals(e0, apply(LaneMath::expNonPositive, e), "exp");
        assertArrayEquals(u0, apply(LaneMath::log1pUnit, u), "log1p");
        assertArrayEquals(p0, apply(LaneMath::log, p), "log");
    }
}
