package org.structlr.learn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.structlr.oracle.ScoreFunction;

/**
 * The function of every factor type at one moment of learning: the unary type ({@link #UNARY}) and
 * pairwise types 0..T-1. A null function has not been fitted yet and means g = 0. Immutable.
 */
public record Functions(ScoreFunction unary, List<ScoreFunction> pair) {
    /** The type index of the unary type (pairwise types are 0..T-1). */
    public static final int UNARY = -1;

    public Functions {
        pair = Collections.unmodifiableList(new ArrayList<>(pair));   // List.copyOf refuses the nulls of unfitted types
    }

    /** No type fitted yet (g = 0 everywhere). */
    public static Functions none(int numPairTypes) {
        return new Functions(null, Collections.nCopies(numPairTypes, null));
    }

    public int numPairTypes() {
        return pair.size();
    }

    /** The function of type {@code type} ({@link #UNARY} or a pairwise type). */
    public ScoreFunction get(int type) {
        return type == UNARY ? unary : pair.get(type);
    }

    /** These functions with type {@code type}'s replaced. */
    public Functions with(int type, ScoreFunction f) {
        if (type == UNARY) return new Functions(f, pair);
        List<ScoreFunction> p = new ArrayList<>(pair);
        p.set(type, f);
        return new Functions(unary, p);
    }
}
