package org.structlr.oracle;

import java.io.IOException;
import java.nio.file.Path;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A fitted function g(phi, y) of one factor type, in units where f = eps * g (the learner multiplies
 * by eps). Immutable in effect: a later oracle call never changes what an earlier function returns.
 *
 * <p>Saved as a directory: {@link ScoreFunctions#META_FILE} names the kind and the shape, beside the
 * kind's own files; {@link FunctionClasses#load(Path)} restores any kind a registered
 * {@link FunctionClass} claims.
 */
public interface ScoreFunction {

    /** g for every row of {@code features [N, D]}: {@code [N, C]}, in the features' data type. */
    INDArray scores(INDArray features);

    int numClasses();

    /** The feature width D this function expects, or -1 when it ignores the features. */
    int numFeatures();

    /** The kind tag written to disk: "zero", "constant", "linear", "mlp", "boost", "cnn", or a
     *  kind of a class of one's own (see {@link FunctionClass#kinds()}). */
    String kind();

    /** A one-line human description (kind, sizes, settings). */
    String describe();

    /** Writes this function into {@code dir} (created if missing; files of the same names replaced). */
    void save(Path dir) throws IOException;
}
