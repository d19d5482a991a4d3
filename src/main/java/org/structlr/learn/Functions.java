package org.structlr.learn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.structlr.oracle.ScoreFunction;

/**
 * The function of every factor type at one moment of learning: the unary type ({@link #UNARY}),
 * pairwise types 0..T-1 and region types T..T+R-1 (factors over more than two variables,
 * {@link org.structlr.model.RegionLayout}). A null function has not been fitted yet and means g = 0.
 * Immutable.
 */
public record Functions(ScoreFunction unary, List<ScoreFunction> pair, List<ScoreFunction> regions) {
    /** The type index of the unary type (pairwise types are 0..T-1, region types T..T+R-1). */
    public static final int UNARY = -1;

    public Functions {
        pair = Collections.unmodifiableList(new ArrayList<>(pair));   // List.copyOf refuses the nulls of unfitted types
        regions = Collections.unmodifiableList(new ArrayList<>(regions));
    }

    /** Unary and pairwise types only. */
    public Functions(ScoreFunction unary, List<ScoreFunction> pair) {
        this(unary, pair, List.of());
    }

    /** No type fitted yet (g = 0 everywhere). */
    public static Functions none(int numPairTypes) {
        return none(numPairTypes, 0);
    }

    /** No type fitted yet, with {@code numRegionTypes} region types. */
    public static Functions none(int numPairTypes, int numRegionTypes) {
        return new Functions(null, Collections.nCopies(numPairTypes, null), Collections.nCopies(numRegionTypes, null));
    }

    public int numPairTypes() {
        return pair.size();
    }

    public int numRegionTypes() {
        return regions.size();
    }

    /** The function of type {@code type} ({@link #UNARY}, a pairwise type or a region type). */
    public ScoreFunction get(int type) {
        if (type == UNARY) return unary;
        return type < pair.size() ? pair.get(type) : regions.get(type - pair.size());
    }

    /** These functions with type {@code type}'s replaced. */
    public Functions with(int type, ScoreFunction f) {
        if (type == UNARY) return new Functions(f, pair, regions);
        if (type < pair.size()) {
            List<ScoreFunction> p = new ArrayList<>(pair);
            p.set(type, f);
            return new Functions(unary, p, regions);
        }
        List<ScoreFunction> r = new ArrayList<>(regions);
        r.set(type - pair.size(), f);
        return new Functions(unary, pair, r);
    }
}
