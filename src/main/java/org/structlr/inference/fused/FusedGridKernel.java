package org.structlr.inference.fused;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The star update of one colour class over a range of positions, in one pass, with the Vector API
 * (float lanes of the preferred width; exp and log from {@link LaneMath}, which give the same bits
 * whether or not the JIT has compiled the loop yet). Everything is in units of eps. Planes (see {@link FusedGridLayout}, P = plane length):
 * <ul>
 *   <li>{@code lam[pad + (d L + y) P + i]}: message into the pixel at i from its edge in direction d;</li>
 *   <li>{@code t[y P + i]}: theta_i(y) / eps;</li>
 *   <li>two labels ({@link #pass2}): {@code pot[pad + ((s L + y) L + yo) P + i]}: theta_a(own y, neighbour yo) / eps
 *       of the pixel's right (s = 0) and down (s = 1) edge, each edge's table once, at its left / upper end;</li>
 *   <li>more labels ({@link #passL}): each edge's table once, in row blocks, as described there.</li>
 * </ul>
 * Star update at each position (a_d = the neighbour's message from the shared edge, N = degree + 1):
 * <pre>
 *   m_d(y)   = lse_yo( pot_d(y, yo) + a_d(yo) )                    (real edges)
 *   total(y) = t(y) + sum_{real d} m_d(y)
 *   lam_d(y) = total(y) / N - max(m_d(y), -BIG)   on real edges, 0 on missing ones
 * </pre>
 * An impossible label (total minus infinity) gets minus infinity messages; the max is taken with
 * -BIG before subtracting so that infinity is never subtracted from infinity, and every lse keeps
 * its unclamped maximum so that an all minus infinity row gives minus infinity, never NaN.
 */
final class FusedGridKernel {
    static final VectorSpecies<Float> S = LaneMath.S;
    static final float BIG = 1e30f;
    /**
     * Below this, a probability-space sum may have lost its leading terms to float underflow
     * (each factor is at most 1, so a sum of at least TINY has its dominant terms above 1e-31,
     * far from the 1e-38 underflow): such lanes are recomputed exactly in log space.
     */
    static final float TINY = 1e-30f;

    private FusedGridKernel() {}

    /** lse of two: max + log1p(exp(min - max)), with the max clamped at -BIG inside the exp only. */
    private static FloatVector lse2(FloatVector x, FloatVector y, FloatVector negBig) {
        FloatVector mx = x.max(y), mn = x.min(y);
        return mx.add(LaneMath.log1pUnit(LaneMath.expNonPositive(mn.sub(mx.max(negBig)))));
    }

    /**
     * Two labels, everything in registers: per direction two lse of two terms (2 exp + 2 log1p),
     * 16 transcendentals per pixel. The right and down tables are the pixel's own ({@code pot});
     * the left and up ones are the neighbour's right and down tables ({@code potNb}, the other
     * colour's, at the neighbour's offset) read transposed: pot_left(y, yo) = pot_nb,right(yo, y).
     */
    static void pass2(float[] lam, float[] nb, float[] t, float[] pot, float[] potNb, float[] invN, boolean[][] real,
                      int P, int pad, int start, int end, int offR, int offL, int offD, int offU) {
        final FloatVector negBig = FloatVector.broadcast(S, -BIG), zero = FloatVector.zero(S);
        final int L = 2;
        final boolean[] rR = real[0], rL = real[1], rD = real[2], rU = real[3];
        for (int i = start; i < end; i += S.length()) {
            // table plane (s L + y) L + yo for L = 2: right s = 0 (planes 0..3), down s = 1 (planes 4..7)
            // right (d = 0): the neighbour's message from its left edge (d = 1); own table (y, yo)
            int a = pad + (1 * L) * P + i + offR, p = pad + i;
            FloatVector a0 = FloatVector.fromArray(S, nb, a), a1 = FloatVector.fromArray(S, nb, a + P);
            FloatVector mR0 = lse2(FloatVector.fromArray(S, pot, p).add(a0), FloatVector.fromArray(S, pot, p + P).add(a1), negBig);
            FloatVector mR1 = lse2(FloatVector.fromArray(S, pot, p + 2 * P).add(a0), FloatVector.fromArray(S, pot, p + 3 * P).add(a1), negBig);
            // left (d = 1): from the neighbour's right edge (d = 0); its right table transposed (yo, y)
            a = pad + i + offL;
            p = pad + i + offL;
            a0 = FloatVector.fromArray(S, nb, a);
            a1 = FloatVector.fromArray(S, nb, a + P);
            FloatVector mL0 = lse2(FloatVector.fromArray(S, potNb, p).add(a0), FloatVector.fromArray(S, potNb, p + 2 * P).add(a1), negBig);
            FloatVector mL1 = lse2(FloatVector.fromArray(S, potNb, p + P).add(a0), FloatVector.fromArray(S, potNb, p + 3 * P).add(a1), negBig);
            // down (d = 2): from the neighbour's up edge (d = 3); own table
            a = pad + (3 * L) * P + i + offD;
            p = pad + 4 * P + i;
            a0 = FloatVector.fromArray(S, nb, a);
            a1 = FloatVector.fromArray(S, nb, a + P);
            FloatVector mD0 = lse2(FloatVector.fromArray(S, pot, p).add(a0), FloatVector.fromArray(S, pot, p + P).add(a1), negBig);
            FloatVector mD1 = lse2(FloatVector.fromArray(S, pot, p + 2 * P).add(a0), FloatVector.fromArray(S, pot, p + 3 * P).add(a1), negBig);
            // up (d = 3): from the neighbour's down edge (d = 2); its down table transposed
            a = pad + (2 * L) * P + i + offU;
            p = pad + 4 * P + i + offU;
            a0 = FloatVector.fromArray(S, nb, a);
            a1 = FloatVector.fromArray(S, nb, a + P);
            FloatVector mU0 = lse2(FloatVector.fromArray(S, potNb, p).add(a0), FloatVector.fromArray(S, potNb, p + 2 * P).add(a1), negBig);
            FloatVector mU1 = lse2(FloatVector.fromArray(S, potNb, p + P).add(a0), FloatVector.fromArray(S, potNb, p + 3 * P).add(a1), negBig);

            VectorMask<Float> kR = VectorMask.fromArray(S, rR, i), kL = VectorMask.fromArray(S, rL, i),
                    kD = VectorMask.fromArray(S, rD, i), kU = VectorMask.fromArray(S, rU, i);
            FloatVector inv = FloatVector.fromArray(S, invN, i);
            FloatVector u0 = FloatVector.fromArray(S, t, i)
                    .add(zero.blend(mR0, kR)).add(zero.blend(mL0, kL)).add(zero.blend(mD0, kD)).add(zero.blend(mU0, kU)).mul(inv);
            FloatVector u1 = FloatVector.fromArray(S, t, P + i)
                    .add(zero.blend(mR1, kR)).add(zero.blend(mL1, kL)).add(zero.blend(mD1, kD)).add(zero.blend(mU1, kU)).mul(inv);
            int o = pad + i;
            zero.blend(u0.sub(mR0.max(negBig)), kR).intoArray(lam, o);
            zero.blend(u1.sub(mR1.max(negBig)), kR).intoArray(lam, o + P);
            zero.blend(u0.sub(mL0.max(negBig)), kL).intoArray(lam, o + 2 * P);
            zero.blend(u1.sub(mL1.max(negBig)), kL).intoArray(lam, o + 3 * P);
            zero.blend(u0.sub(mD0.max(negBig)), kD).intoArray(lam, o + 4 * P);
            zero.blend(u1.sub(mD1.max(negBig)), kD).intoArray(lam, o + 5 * P);
            zero.blend(u0.sub(mU0.max(negBig)), kU).intoArray(lam, o + 6 * P);
            zero.blend(u1.sub(mU1.max(negBig)), kU).intoArray(lam, o + 7 * P);
        }
    }

    /**
     * Two labels: the dual's terms (docs/design.md §1, in eps units) of the positions [start, end) of
     * one colour's (image, member) block, summed: each pixel's unary region
     * {@code lse_y u(y)}, {@code u(y) = t(y) - sum_{real d} lam_d(y)} (minus infinity when t or a
     * real message is), and the regions of its right and down edges (each edge once, at its left /
     * upper end) {@code lse_{y,yo} pot_d(y, yo) + lam_d(y) + a_d(yo)}, a_d the neighbour's message
     * from the shared edge. lse of four = lse of two lse of two. Lanes in float, each vector's sum
     * added in double.
     */
    static double dual2(float[] lam, float[] nb, float[] t, float[] pot, boolean[][] real, boolean[] pixel,
                        int P, int pad, int start, int end, int offR, int offD) {
        final FloatVector negBig = FloatVector.broadcast(S, -BIG), zero = FloatVector.zero(S);
        final int L = 2;
        double total = 0;
        for (int i = start; i < end; i += S.length()) {
            VectorMask<Float> px = VectorMask.fromArray(S, pixel, i);
            if (!px.anyTrue()) continue;
            VectorMask<Float> kR = VectorMask.fromArray(S, real[0], i), kD = VectorMask.fromArray(S, real[2], i);
            FloatVector acc = zero;
            // unary region
            acc = acc.add(zero.blend(lse2(unaryRegion(lam, t, real, P, pad, i, 0, zero), unaryRegion(lam, t, real, P, pad, i, 1, zero), negBig), px));
            // right edge (own table planes 0..3, the neighbour's left message) and down edge (planes 4..7, its up message)
            for (int e = 0; e < 2; e++) {
                int dOwn = e == 0 ? 0 : 2, dNb = dOwn + 1, off = e == 0 ? offR : offD, p = pad + 4 * e * P + i;
                FloatVector l0 = FloatVector.fromArray(S, lam, pad + (dOwn * L) * P + i), l1 = FloatVector.fromArray(S, lam, pad + (dOwn * L + 1) * P + i);
                FloatVector a0 = FloatVector.fromArray(S, nb, pad + (dNb * L) * P + i + off), a1 = FloatVector.fromArray(S, nb, pad + (dNb * L + 1) * P + i + off);
                FloatVector r0 = lse2(FloatVector.fromArray(S, pot, p).add(l0).add(a0), FloatVector.fromArray(S, pot, p + P).add(l0).add(a1), negBig);
                FloatVector r1 = lse2(FloatVector.fromArray(S, pot, p + 2 * P).add(l1).add(a0), FloatVector.fromArray(S, pot, p + 3 * P).add(l1).add(a1), negBig);
                acc = acc.add(zero.blend(lse2(r0, r1, negBig), e == 0 ? kR : kD));
            }
            total += acc.reduceLanes(VectorOperators.ADD);
        }
        return total;
    }

    /** Two labels: u(y) = t(y) - sum_{real d} lam_d(y) at the vector of positions from i, minus infinity where t or a real message is. */
    private static FloatVector unaryRegion(float[] lam, float[] t, boolean[][] real, int P, int pad, int i, int y, FloatVector zero) {
        final float negInf = Float.NEGATIVE_INFINITY;
        FloatVector s = FloatVector.fromArray(S, t, y * P + i);
        VectorMask<Float> impossible = s.compare(VectorOperators.EQ, negInf);
        for (int d = 0; d < 4; d++) {
            VectorMask<Float> k = VectorMask.fromArray(S, real[d], i);
            FloatVector l = FloatVector.fromArray(S, lam, pad + (d * 2 + y) * P + i);
            impossible = impossible.or(l.compare(VectorOperators.EQ, negInf).and(k));
            s = s.sub(zero.blend(l, k));
        }
        return s.blend(negInf, impossible);
    }

    /**
     * More than two labels, in probability space, over one pixel row of one colour (positions
     * [start, end), whole vectors). Each edge's table is stored once, at the pixel left of or above
     * it ({@code tab}: for its right edge (slot 0) and down edge (slot 1), {@code E(y, yo) =
     * exp(pot(y, yo) - rowMax(y))} and {@code rowMax(y) = max_yo pot(y, yo)}, y the storing pixel's
     * label; {@code pot}: the same tables in log space). Table entry e of position i is at
     * {@code base + e * stride + (i - start)}: a row's entries are one contiguous block, so a row
     * streams from memory as a few long runs. The right and down messages use the pixel's own
     * tables; the left and up ones read the neighbour's table transposed, with its row maxima folded
     * into the incoming message (a = the neighbour's message from the shared edge):
     * <pre>
     *   own edge:        amax = max_yo a(yo),  A(yo) = exp(a(yo) - amax)
     *                    m(y) = rowMax(y) + amax + log sum_yo E(y, yo) A(yo)
     *   neighbour's:     b(yo) = a(yo) + rowMax_nb(yo),  K = max_yo b(yo),  B(yo) = exp(b(yo) - K)
     *                    m(y) = K + log sum_yo E_nb(yo, y) B(yo)
     * </pre>
     * (the second is lse_yo(pot_nb(yo, y) + a(yo)) with pot_nb = log E_nb + rowMax_nb). 2L
     * transcendentals per direction instead of L(L+1) in log space. Every factor is at most 1; a
     * real-edge lane whose sum is below {@link #TINY} (float underflow possible) has that (d, y)
     * row recomputed exactly in log space from {@code pot}, unless the row is minus infinity by
     * structure (an impossible row of the table or an all minus infinity message, where 0 is exact).
     * {@code tab}: own row base {@code tabOwn}, the neighbours' (other colour's arrays) {@code tabLeft}
     * (column shift included) and {@code tabUp}; likewise for {@code pot}.
     * {@code scratch} holds 4 L + L vectors (the m's, then the A's) for one vector of positions.
     */
    static void passL(int L, float[] lam, float[] nb, float[] t, float[] tab, float[] tabNb, float[] pot, float[] potNb,
                      float[] invN, boolean[][] real, int P, int pad, int start, int end, int[] off, int stride,
                      int tabOwn, int tabLeft, int tabUp, int potOwn, int potLeft, int potUp, float[] scratch) {
        final FloatVector negBig = FloatVector.broadcast(S, -BIG), zero = FloatVector.zero(S), tiny = FloatVector.broadcast(S, TINY);
        final FloatVector negInf = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        final int V = S.length(), aAt = 4 * L * V, slot = L * L + L;
        // One code path for both kinds of edge (C2 gives up inlining the lane maths in a method with
        // two copies of it, and a vector that is not inlined is boxed: 10x slower). Own edge: the
        // message is shifted by nothing and m(y) gets rowMax(y); neighbour's: the message is
        // shifted by rowMax_nb and m gets nothing. "Nothing" is read from ZEROS with step 0.
        for (int i = start; i < end; i += V) {
            final int q = i - start;
            for (int d = 0; d < 4; d++) {
                VectorMask<Float> k = VectorMask.fromArray(S, real[d], i);
                int a = pad + ((d ^ 1) * L) * P + i + off[d];
                boolean own = d == FusedGridLayout.RIGHT || d == FusedGridLayout.DOWN;
                float[] tb = own ? tab : tabNb;
                int e0 = (own ? tabOwn : d == FusedGridLayout.LEFT ? tabLeft : tabUp) + (d >> 1) * slot * stride + q;
                int rm = e0 + L * L * stride;   // rowMax of this table, by the storing pixel's label
                float[] xArr = own ? ZEROS : tb, mArr = own ? tb : ZEROS;
                int xAt = own ? 0 : rm, xStep = own ? 0 : stride, mAt = own ? rm : 0, mStep = own ? stride : 0;
                // x(yo) = a(yo) (+ rowMax_nb(yo)); shift = max_yo x(yo); X(yo) = exp(x(yo) - shift)
                FloatVector shift = negInf;
                for (int yo = 0; yo < L; yo++) {
                    FloatVector x = FloatVector.fromArray(S, nb, a + yo * P).add(FloatVector.fromArray(S, xArr, xAt + yo * xStep));
                    x.intoArray(scratch, aAt + yo * V);
                    shift = shift.max(x);
                }
                FloatVector sc = shift.max(negBig);
                for (int yo = 0; yo < L; yo++) {
                    LaneMath.expNonPositive(FloatVector.fromArray(S, scratch, aAt + yo * V).sub(sc)).intoArray(scratch, aAt + yo * V);
                }
                // an all minus infinity message gives exactly minus infinity: no exact recomputation needed
                VectorMask<Float> finite = k.and(shift.compare(VectorOperators.NE, negInf));
                // own: E(y, yo) at e0 + (y L + yo) stride; neighbour's: E_nb(yo, y) at e0 + (yo L + y) stride
                int rowStep = own ? L * stride : stride, colStep = own ? stride : L * stride;
                for (int y = 0; y < L; y++) {
                    int ey = e0 + y * rowStep;
                    FloatVector s = FloatVector.fromArray(S, tb, ey).mul(FloatVector.fromArray(S, scratch, aAt));
                    for (int yo = 1; yo < L; yo++) {
                        s = FloatVector.fromArray(S, tb, ey + yo * colStep).fma(FloatVector.fromArray(S, scratch, aAt + yo * V), s);
                    }
                    FloatVector rowMax = FloatVector.fromArray(S, mArr, mAt + y * mStep);
                    rowMax.add(shift).add(LaneMath.log(s)).intoArray(scratch, (d * L + y) * V);
                    if (s.compare(VectorOperators.LT, tiny).and(finite).and(rowMax.compare(VectorOperators.NE, negInf)).anyTrue()) {
                        int p0 = (own ? potOwn : d == FusedGridLayout.LEFT ? potLeft : potUp) + (d >> 1) * L * L * stride + q;
                        exactRow(L, nb, a, P, own ? pot : potNb, p0 + (own ? y * L * stride : y * stride),
                                own ? stride : L * stride, scratch, (d * L + y) * V);
                    }
                }
            }
            FloatVector inv = FloatVector.fromArray(S, invN, i);
            for (int y = 0; y < L; y++) {
                FloatVector total = FloatVector.fromArray(S, t, y * P + i);
                for (int d = 0; d < 4; d++) {
                    total = total.add(zero.blend(FloatVector.fromArray(S, scratch, (d * L + y) * V), VectorMask.fromArray(S, real[d], i)));
                }
                FloatVector u = total.mul(inv);
                for (int d = 0; d < 4; d++) {
                    FloatVector m = FloatVector.fromArray(S, scratch, (d * L + y) * V);
                    zero.blend(u.sub(m.max(negBig)), VectorMask.fromArray(S, real[d], i)).intoArray(lam, pad + (d * L + y) * P + i);
                }
            }
        }
    }

    /** Read as "add nothing" by {@link #passL} (step 0): one vector of zeros. */
    private static final float[] ZEROS = new float[64];

    /**
     * m = mx + log sum_yo exp(pot_yo + a(yo) - max(mx, -BIG)), mx = max_yo (pot_yo + a(yo)), with
     * pot_yo at {@code p0 + yo * step}: exact for any range and for minus infinity.
     */
    private static void exactRow(int L, float[] nb, int a, int P, float[] pot, int p0, int step, float[] out, int outAt) {
        final FloatVector negBig = FloatVector.broadcast(S, -BIG);
        FloatVector mx = FloatVector.fromArray(S, pot, p0).add(FloatVector.fromArray(S, nb, a));
        for (int yo = 1; yo < L; yo++) mx = mx.max(FloatVector.fromArray(S, pot, p0 + yo * step).add(FloatVector.fromArray(S, nb, a + yo * P)));
        FloatVector mc = mx.max(negBig), s = FloatVector.zero(S);
        for (int yo = 0; yo < L; yo++) {
            s = s.add(LaneMath.expNonPositive(FloatVector.fromArray(S, pot, p0 + yo * step).add(FloatVector.fromArray(S, nb, a + yo * P)).sub(mc)));
        }
        mx.add(LaneMath.log(s)).intoArray(out, outAt);
    }
}
