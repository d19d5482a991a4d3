package org.structlr.data;

import java.io.Serializable;
import java.nio.file.Path;

/**
 * What {@link Dataset}'s checks across files need to know of one example: widths, label facts,
 * sizes. Small and serialisable, so that a machine that read the example (a Spark executor) can
 * send it to the one that checks the whole data set, which then never holds the arrays.
 *
 * @param source        the file or URI the example was read from (for messages), or null
 * @param numLabels     the file's {@code num_labels}, or 0 when not given
 * @param maxLabel      the largest label, -1 when unlabelled or all void
 * @param labelledVariables the variables with a label (not void; 0 when unlabelled)
 * @param maxEdgeType   the largest {@code edge_type}, 0 without edge types
 * @param image         whether the example has a {@code shape} (its variables are pixels)
 */
public record ExampleFacts(String source, int unaryDim, int pairDim, int numLabels, boolean labelled, int maxLabel,
                           int maxEdgeType, int numVariables, int numEdges, boolean image, int labelledVariables) implements Serializable {

    public static ExampleFacts of(Example e) {
        return of(e, e.source().map(Path::toString).orElse(null));
    }

    /** The facts of {@code e}, named {@code source} in messages. */
    public static ExampleFacts of(Example e, String source) {
        return new ExampleFacts(source, e.unaryDim(), e.pairDim(), e.numLabels().orElse(0), e.hasLabels(), e.maxLabel(),
                e.maxEdgeType(), e.numVariables(), e.numEdges(), e.hasShape(), e.numLabelled());
    }

    /** The name in messages (as {@link Example#name()}). */
    public String name() {
        return source == null ? "<example>" : source;
    }
}
