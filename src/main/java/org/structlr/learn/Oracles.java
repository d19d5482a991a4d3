package org.structlr.learn;

import java.util.ArrayList;
import java.util.List;
import org.structlr.data.DatasetSummary;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.Oracle;

/**
 * The oracles of one run, one per factor type, made by the function classes named on the command
 * line; closing them frees their native caches (the booster's matrices), the fitted functions stay
 * usable. {@link #seed} is the one place that says which seed each factor type's oracle gets.
 */
public record Oracles(Oracle unary, List<Oracle> pair, List<Oracle> regions) implements AutoCloseable {
    public Oracles {
        pair = List.copyOf(pair);
        regions = List.copyOf(regions);
    }

    /** Unary and pairwise oracles only. */
    public Oracles(Oracle unary, List<Oracle> pair) {
        this(unary, pair, List.of());
    }

    /** The oracles for a data set with this summary: {@code unary}'s class for the unary type, {@code pair}'s for every pairwise type. */
    public static Oracles create(DatasetSummary data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads) {
        return create(data, unary, pair, RegionLayout.NONE, settings, threads);
    }

    /** As above, and {@code pair}'s class for every region type of {@code regions} (on the regions' features). */
    public static Oracles create(DatasetSummary data, FunctionSpec unary, FunctionSpec pair, RegionLayout regions, LearnSettings settings, int threads) {
        Oracle u = unary.create(data.unaryDim(), seed(settings.seed(), Functions.UNARY), threads);
        List<Oracle> p = new ArrayList<>();
        int T = Training.pairTypeNames(data.numPairTypes()).size();
        for (int t = 0; t < T; t++) p.add(pair.create(data.pairDim(), seed(settings.seed(), t), threads));
        List<Oracle> r = new ArrayList<>();
        for (int t = 0; t < regions.numTypes(); t++) r.add(pair.create(regions.featureWidth(data.pairDim()), seed(settings.seed(), T + t), threads));
        return new Oracles(u, p, r);
    }

    /**
     * The seed of factor type {@code type}'s oracle in a run with seed {@code runSeed}: the unary type the run's, pairwise type t
     * runSeed + 1 + t (region type r, numbered after the T pairwise types, runSeed + 1 + T + r).
     */
    public static long seed(long runSeed, int type) {
        return type == Functions.UNARY ? runSeed : runSeed + 1 + type;
    }

    @Override
    public void close() {
        for (Oracle o : regions) closeQuietly(o);
        for (Oracle o : pair) closeQuietly(o);
        closeQuietly(unary);
    }

    private static void closeQuietly(Oracle o) {
        if (o instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a cache that cannot be freed is no reason to lose a trained model
            }
        }
    }
}
