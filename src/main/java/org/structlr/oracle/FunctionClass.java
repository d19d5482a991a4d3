package org.structlr.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * A function class a factor type can learn (docs/design.md §1: the oracle fits g of this class to a biased
 * logistic problem), with everything structlr needs to use it end to end: a CLI name, an oracle,
 * the loader of its saved functions, and its export.
 *
 * <p>To add a class: implement this interface (public class, public no-argument constructor) and
 * list the class in {@code META-INF/services/org.structlr.oracle.FunctionClass} of your jar, or call
 * {@link FunctionClasses#register} (for code that cannot ship a services file, such as a notebook).
 * Then {@code train --unary NAME}, {@code CrfModel.load}, checkpoints and {@code export} all know it.
 * Settings a user may change are declared by {@link #options()} and read in {@link #create} from
 * {@link Context#options()}.
 */
public interface FunctionClass {

    /**
     * What an oracle is made for: a unary ({@code unary}) or pairwise factor type with features of
     * width D = {@code featureWidth}, the seed of its random choices, its thread count, and the values
     * of the class's {@link #options()} ({@code options.get(OPTION)}).
     */
    record Context(boolean unary, int featureWidth, long seed, int threads, ClassOptions options) {
        public Context {
            java.util.Objects.requireNonNull(options, "options");
            if (options.unary() != unary) throw new IllegalArgumentException("options for a " + (options.unary() ? "unary" : "pairwise")
                    + " type given to a " + (unary ? "unary" : "pairwise") + " one");
        }

        /** Every option at its default. */
        public Context(boolean unary, int featureWidth, long seed, int threads) {
            this(unary, featureWidth, seed, threads, ClassOptions.none(unary));
        }
    }

    /** Where and under which names an exported function is written. */
    record ExportTarget(Path dir, String stem, String name, int numClasses, int featureWidth) {}

    /** The CLI name ({@code --unary NAME}), lower case, recorded in models and checkpoints. */
    String name();

    /** One line for help texts. */
    String description();

    /**
     * Throws IllegalArgumentException (with the reason as its message) when this class cannot learn
     * a unary ({@code unary}) or pairwise factor type on features of width {@code featureWidth}.
     */
    default void checkApplicable(boolean unary, int featureWidth) {}

    /**
     * Throws IllegalArgumentException (with the reason, naming any file) when the option values
     * {@code options} cannot fit a data set of {@code pixelFeatures} unary (pixel) features and
     * {@code numLabels} labels, e.g. an own network file of the wrong shape; called before training.
     */
    default void checkData(ClassOptions options, int pixelFeatures, int numLabels) {}

    /**
     * The settings of this class a user may change ({@code --unary-option NAME=VALUE}), beyond the
     * seed and thread count: names, defaults, help and checks. Their values reach {@link #create}
     * in {@link Context#options()}, checked; models and checkpoints record them. None by default.
     */
    default java.util.List<ClassOption<?>> options() {
        return java.util.List.of();
    }

    /**
     * Why {@code option} (one of {@link #options()}) changes nothing in a fit given the values of all
     * of them, {@code values} (each given or at its default), e.g. "arch is dilated; depth sets the
     * levels of arch=unet"; null when it applies (the default: every option applies). An option that
     * does not apply is left out of {@link ClassOptions#values()}, so models and checkpoints record,
     * and resumes compare, only what applies; giving one is refused with this reason.
     */
    default String inapplicable(ClassOption<?> option, ClassOptions values) {
        return null;
    }

    /**
     * A fresh oracle; {@code context.seed()} fixes every random choice it makes. Its
     * {@link Oracle#describe()} names every setting that changes a fit, option values included.
     */
    Oracle create(Context context);

    /** The {@link ScoreFunction#kind()} tags of the functions this class's oracles return (and {@link #load} reads). */
    Set<String> kinds();

    /**
     * Restores a function saved by {@link ScoreFunction#save}: {@code meta} is its
     * {@value ScoreFunctions#META_FILE}, already checked for format, kind and numClasses.
     */
    ScoreFunction load(Path dir, JsonNode meta) throws IOException;

    /**
     * Writes {@code f} into {@code target.dir()} in its ecosystem's standard format (file names
     * starting with {@code target.stem()}), checks the written file reproduces {@link ScoreFunction#scores}
     * ({@link FunctionExport#check}), and returns the manifest fields that say how to read it:
     * at least {@code file}, {@code format}, {@code features} and {@code output}.
     *
     * @throws IllegalArgumentException when this function cannot be exported
     */
    ObjectNode export(ScoreFunction f, ExportTarget target) throws IOException;
}
