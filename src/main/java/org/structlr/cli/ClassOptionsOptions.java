package org.structlr.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.structlr.data.BadInputException;
import org.structlr.oracle.FunctionSpec;
import picocli.CommandLine.Option;

/**
 * {@code --unary-option NAME=VALUE} / {@code --pairwise-option NAME=VALUE} (repeatable): the options
 * a function class declares (train, demo, experiment; {@code structlr classes} lists them).
 */
final class ClassOptionsOptions {
    @Option(names = "--unary-option", paramLabel = "NAME=VALUE", mapFallbackValue = "",
            description = "An option of the unary function class (repeatable), e.g. --unary-option epochs=2;"
                    + " 'structlr classes' lists every class's options and defaults.")
    Map<String, String> unary = new LinkedHashMap<>();

    @Option(names = "--pairwise-option", paramLabel = "NAME=VALUE", mapFallbackValue = "",
            description = "An option of the pairwise function class (repeatable), as --unary-option.")
    Map<String, String> pairwise = new LinkedHashMap<>();

    /** Whether any option was given. */
    boolean any() {
        return !unary.isEmpty() || !pairwise.isEmpty();
    }

    /** The unary class {@code kind} with the given options; a bad one is a usage error naming the option. */
    FunctionSpec unary(String kind) {
        return spec("--unary-option", kind, true, unary);
    }

    /** The pairwise class {@code kind} with the given options; a bad one is a usage error naming the option. */
    FunctionSpec pairwise(String kind) {
        return spec("--pairwise-option", kind, false, pairwise);
    }

    private static FunctionSpec spec(String option, String kind, boolean unary, Map<String, String> given) {
        try {
            return FunctionSpec.of(kind, unary, given);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("option '" + option + "': " + e.getMessage());
        }
    }
}
