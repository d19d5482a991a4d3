package org.structlr.inference;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

/**
 * Turns smoothed-LP inference into one labelling of high energy {@link LabelingEnergy#energy}.
 * The argmax of the beliefs is poor where the LP relaxation is fractional (frustrated cycles:
 * beliefs near uniform, so the argmax is a coin toss per variable). The decoders, each containing
 * the previous one:
 * <ul>
 *   <li>{@code argmax}: argmax of the final beliefs;</li>
 *   <li>{@code best}: the highest-energy argmax seen after any sweep (the final one included);</li>
 *   <li>{@code icm}: {@code best}, then ICM local search from it;</li>
 *   <li>{@code round}: rounding that conditions on decided variables: fix the most confident
 *       undecided variables (all of those whose belief exceeds 1 - 1e-3, and at least a block of
 *       V / {@value #ROUND_BLOCKS}) to their best label consistent with the decided neighbours, clamp
 *       them (other labels minus infinity), run {@value #ROUND_SWEEPS} more sweeps, repeat; then ICM;
 *       the result is the better of this and {@code icm}.</li>
 * </ul>
 * So no decoder returns a lower energy than {@code argmax}. The marginals reported are those of the
 * normal run, taken before rounding changes the engine's potentials.
 */
public final class MapDecoder {
    public enum Kind { argmax, best, icm, round }

    /** Rounding fixes at least V / ROUND_BLOCKS variables per block. */
    static final int ROUND_BLOCKS = 16;
    /** Sweeps after each block of clamps, so the beliefs of the rest condition on them. */
    static final int ROUND_SWEEPS = 10;
    /** Beliefs above this are decided in the current block whatever its size. */
    static final double CONFIDENT = 1 - 1e-3;
    static final int ICM_SWEEPS = 1000;

    /**
     * The run's summary, the beliefs before rounding ({@code [V, L]}), the labels and their energy, and
     * {@link DualBound}'s upper bound on the MAP value at the messages of the run (before rounding
     * clamps anything).
     */
    public record Result(InferenceResult inference, INDArray beliefs, int[] labels, double energy, Kind decoder, double bound) {
        /** True when the energy reaches the bound (to rounding): the labels are a MAP. */
        public boolean certified() {
            return energy > Double.NEGATIVE_INFINITY && bound - energy <= 1e-9 * Math.max(1, Math.abs(bound));
        }
    }

    private final Kind kind;
    private final LabelingEnergy energy;
    private final int roundBlocks, roundSweeps;

    public MapDecoder(Kind kind, LabelingEnergy energy) {
        this(kind, energy, ROUND_BLOCKS, ROUND_SWEEPS);
    }

    /** With the rounding schedule given: at least V / roundBlocks variables per block, roundSweeps sweeps after each. */
    MapDecoder(Kind kind, LabelingEnergy energy, int roundBlocks, int roundSweeps) {
        this.kind = kind;
        this.energy = energy;
        this.roundBlocks = roundBlocks;
        this.roundSweeps = roundSweeps;
    }

    /** Runs {@code mp} (its potentials already set to those of the energy) as {@link MessagePassing#run} does, then decodes. */
    public Result run(MessagePassing mp, StopRule stop) {
        if (kind == Kind.argmax) {
            InferenceResult r = mp.run(stop);
            int[] y = mp.decode();
            return new Result(r, mp.unaryBeliefs().castTo(DataType.DOUBLE), y, energy.energy(y), kind, DualBound.of(energy, mp));
        }
        // MessagePassing.run, one sweep at a time so every sweep's argmax is scored.
        int[] best = mp.decode();
        double bestE = energy.energy(best);
        int done = 0;
        double gap;
        while (done < stop.maxIterations() && !stop.pastDeadline()) {
            int k = Math.min(stop.checkEvery(), stop.maxIterations() - done);
            for (int t = 0; t < k; t++) {
                mp.iterate(1);
                int[] y = mp.decode();
                double e = energy.energy(y);
                if (e > bestE) {
                    bestE = e;
                    best = y;
                }
            }
            done += k;
            if (stop.gapTolerance() > 0) {
                gap = mp.gap();
                if (Math.abs(gap) <= stop.gapTolerance()) break;
            }
        }
        double d = mp.dual(), p = mp.primal();
        InferenceResult r = new InferenceResult(done, d, p, d - p, Math.abs(d - p) <= stop.gapTolerance());
        INDArray beliefs = mp.unaryBeliefs().castTo(DataType.DOUBLE);
        double bound = DualBound.of(energy, mp);
        if (kind == Kind.best) return new Result(r, beliefs, best, bestE, kind, bound);
        int[] y = best.clone();
        double e = energy.icm(y, ICM_SWEEPS);
        if (kind == Kind.round) {
            int[] z = round(mp, beliefs.toDoubleMatrix(), stop);
            double ez = energy.icm(z, ICM_SWEEPS);
            if (ez > e) {
                e = ez;
                y = z;
            }
        }
        return new Result(r, beliefs, y, e, kind, bound);
    }

    /**
     * Rounding conditioned on decided variables (see the class comment); leaves the engine clamped.
     * Past the stop rule's deadline the undecided variables are all fixed at once, without more sweeps.
     */
    int[] round(MessagePassing mp, double[][] beliefs, StopRule stop) {
        FactorGraph g = energy.graph();
        int n = g.numVariables(), L = g.maxLabels();
        double[] unary = energy.unaryCopy();
        INDArray pairwise = Nd4j.create(energy.pairwiseCopy(), new long[] {g.numEdges(), (long) L * L}, DataType.DOUBLE);
        INDArray regions = Nd4j.create(energy.regionCopy(), new long[] {g.totalRegionEntries()}, DataType.DOUBLE);
        int[] y = new int[n];
        Arrays.fill(y, -1);
        int decided = 0;
        int block = Math.max(1, (n + roundBlocks - 1) / roundBlocks);
        double[][] b = beliefs;
        while (decided < n) {
            final double[][] bb = b;
            final int[] yy = y;
            Integer[] order = IntStream.range(0, n).filter(i -> yy[i] < 0).boxed().toArray(Integer[]::new);
            Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -max(bb[i], g.numLabels(i))).thenComparingInt(i -> i));
            int fixedNow = 0;
            for (Integer i : order) {
                if (fixedNow >= block && max(b[i], g.numLabels(i)) <= CONFIDENT && !stop.pastDeadline()) break;
                y[i] = choose(i, b[i], y);
                for (int l = 0; l < L; l++) if (l != y[i]) unary[i * L + l] = Double.NEGATIVE_INFINITY;
                fixedNow++;
                decided++;
            }
            if (decided == n) break;
            mp.setPotentials(Nd4j.create(unary, new long[] {n, L}, DataType.DOUBLE), pairwise, regions);
            mp.iterate(roundSweeps);
            b = mp.unaryBeliefs().castTo(DataType.DOUBLE).toDoubleMatrix();
        }
        return y;
    }

    /**
     * The label of largest belief among those whose local energy against the decided neighbours
     * is finite (so a clamp never breaks a hard constraint with a decided neighbour when it can
     * avoid it); undecided neighbours (-1) are ignored.
     */
    private int choose(int i, double[] b, int[] y) {
        FactorGraph g = energy.graph();
        int best = -1;
        for (int l = 0; l < g.numLabels(i); l++) {
            if (!energy.compatible(i, l, y)) continue;
            if (best < 0 || b[l] > b[best]) best = l;
        }
        if (best >= 0) return best;
        int arg = 0;
        for (int l = 1; l < g.numLabels(i); l++) if (b[l] > b[arg]) arg = l;
        return arg;
    }

    private static double max(double[] b, int n) {
        double m = 0;
        for (int k = 0; k < n; k++) m = Math.max(m, b[k]);
        return m;
    }
}
