package org.structlr.inference.fused;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * exp, log1p and log on float lanes from IEEE add, multiply, fma, divide and bit operations only.
 *
 * <p>Why not {@code VectorOperators.EXP}/{@code LOG1P}: on JDK 17 those are SVML calls once C2 has
 * compiled the loop, but {@code (float) Math.exp(x)} per lane before that (interpreter, C1), and the
 * two differ in the last bit for about 0.5% of inputs. An engine built on them gives results that
 * depend on when the JIT ran, so a run resumed from a checkpoint in a fresh JVM would not repeat an
 * uninterrupted one bit for bit. Basic IEEE operations give the same bits in every tier. The cost
 * is about that of SVML (a few fma per call; conversions are avoided, they are not intrinsified on 17).
 */
final class LaneMath {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, S.vectorShape());

    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693145751953125f, LN2_LO = 1.42860682030941723212e-6f;
    private static final float LN2 = 0.693147180559945309f;
    /** 1.5 * 2^23: adding it rounds a float of magnitude below 2^22 to an integer held in the low mantissa bits. */
    private static final float MAGIC = 12582912f;
    private static final int MAGIC_BITS = 0x4B400000;
    /** Below this exp is taken as 0 (exp(-86) = 4e-38, at the bottom of the normal floats). */
    private static final float EXP_FLOOR = -86f;
    private static final float SQRT2 = 1.41421356237f;

    private LaneMath() {}

    /**
     * exp(x) for x <= 0 (minus infinity gives 0): x = r ln2 + f with r = round(x log2 e),
     * |f| <= ln2 / 2; exp(f) by its Taylor polynomial of degree 7 (error below 6e-9 relative);
     * 2^r put into the exponent bits.
     */
    static FloatVector expNonPositive(FloatVector x) {
        FloatVector xc = x.max(EXP_FLOOR);
        FloatVector t = xc.fma(LOG2E, MAGIC);
        FloatVector r = t.sub(MAGIC);
        FloatVector f = r.fma(FloatVector.broadcast(S, -LN2_HI), xc);
        f = r.fma(FloatVector.broadcast(S, -LN2_LO), f);
        FloatVector p = FloatVector.broadcast(S, 1f / 5040);
        p = p.fma(f, FloatVector.broadcast(S, 1f / 720));
        p = p.fma(f, FloatVector.broadcast(S, 1f / 120));
        p = p.fma(f, FloatVector.broadcast(S, 1f / 24));
        p = p.fma(f, FloatVector.broadcast(S, 1f / 6));
        p = p.fma(f, FloatVector.broadcast(S, 0.5f));
        p = p.fma(f, FloatVector.broadcast(S, 1f));
        p = p.fma(f, FloatVector.broadcast(S, 1f));
        IntVector n = t.reinterpretAsInts().sub(MAGIC_BITS);
        FloatVector e = p.reinterpretAsInts().add(n.lanewise(VectorOperators.LSHL, 23)).reinterpretAsFloats();
        return e.blend(0f, x.compare(VectorOperators.LT, EXP_FLOOR));
    }

    /** log(m) for m in [sqrt(1/2), sqrt(2)]: 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.172, series to s^9 (error below 5e-9). */
    private static FloatVector logNearOne(FloatVector m) {
        FloatVector s = m.sub(1f).div(m.add(1f));
        FloatVector s2 = s.mul(s);
        FloatVector q = FloatVector.broadcast(S, 1f / 9);
        q = q.fma(s2, FloatVector.broadcast(S, 1f / 7));
        q = q.fma(s2, FloatVector.broadcast(S, 1f / 5));
        q = q.fma(s2, FloatVector.broadcast(S, 1f / 3));
        q = q.fma(s2, FloatVector.broadcast(S, 1f));
        return s.add(s).mul(q);
    }

    /** log(1 + z) for z in [0, 1]: log(w) + (z - (w - 1)) / w with w = fl(1 + z), which restores what rounding w lost. */
    static FloatVector log1pUnit(FloatVector z) {
        FloatVector w = z.add(1f);
        FloatVector c = z.sub(w.sub(1f)).div(w);
        var big = w.compare(VectorOperators.GT, SQRT2);
        FloatVector m = w.blend(w.mul(0.5f), big);
        FloatVector k = FloatVector.zero(S).blend(LN2, big);
        return logNearOne(m).add(k).add(c);
    }

    /** log(x) for x >= 0 normal or zero (zero gives minus infinity): x = 2^e m, m in [sqrt(1/2), sqrt(2)). */
    static FloatVector log(FloatVector x) {
        IntVector bits = x.reinterpretAsInts();
        IntVector e = bits.lanewise(VectorOperators.LSHR, 23).sub(127);
        FloatVector m = bits.and(0x007FFFFF).or(0x3F800000).reinterpretAsFloats();
        var big = m.compare(VectorOperators.GT, SQRT2);
        m = m.blend(m.mul(0.5f), big);
        e = e.blend(e.add(1), big.cast(I));
        FloatVector ef = e.add(MAGIC_BITS).reinterpretAsFloats().sub(MAGIC);   // the integer e as a float, exactly
        FloatVector y = ef.fma(FloatVector.broadcast(S, LN2_HI), logNearOne(m)).add(ef.mul(LN2_LO));
        return y.blend(Float.NEGATIVE_INFINITY, x.compare(VectorOperators.EQ, 0f));
    }
}
