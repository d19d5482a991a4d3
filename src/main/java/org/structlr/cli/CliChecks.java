package org.structlr.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.structlr.data.BadInputException;
import org.structlr.features.ImageFeatures;
import org.structlr.features.PatchFeatures;
import org.structlr.features.RgbFeatures;
import org.structlr.features.UnaryFeatures;
import org.structlr.learn.LearnSettings;

/** Option checks that picocli's types cannot express; failures are usage errors (exit 2). */
final class CliChecks {
    private CliChecks() {}

    /** {@code evalEvery} null: {@link LearnSettings#defaultEvalEvery}. */
    static LearnSettings settings(int iterations, double eps, int sweeps, int evalSweeps, Integer evalEvery, long seed) {
        if (iterations < 0) throw new BadInputException("option '--iterations' must be at least 0, got " + iterations);
        if (!(eps > 0) || Double.isInfinite(eps)) throw new BadInputException("option '--eps' must be positive and finite, got " + eps);
        if (sweeps < 1) throw new BadInputException("option '--sweeps' must be at least 1, got " + sweeps);
        if (evalSweeps < LearnSettings.AUTO_EVAL_SWEEPS) throw new BadInputException("option '--eval-sweeps' must be at least 0 (or auto), got " + evalSweeps);
        if (evalEvery != null && evalEvery < 1) throw new BadInputException("option '--eval-every' must be at least 1, got " + evalEvery);
        try {
            return new LearnSettings(iterations, eps, sweeps, evalSweeps,
                    evalEvery == null ? LearnSettings.defaultEvalEvery(iterations) : evalEvery, seed);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /**
     * Refuses, before any work is done, an output path that cannot be written: one below a regular
     * file or in a folder that is not writable, or (for {@code folder} outputs) an existing file,
     * or (for file outputs) an existing folder. Null (option not given) passes.
     */
    static void output(String option, Path path, boolean folder) {
        if (path == null) return;
        Path abs = path.toAbsolutePath().normalize();
        if (Files.exists(abs)) {
            if (folder && !Files.isDirectory(abs)) throw new BadInputException(path, "cannot write " + option + ": exists and is a file, not a folder");
            if (!folder && Files.isDirectory(abs)) throw new BadInputException(path, "cannot write " + option + ": exists and is a folder");
        }
        Path p = abs.getParent();
        while (p != null && !Files.exists(p)) p = p.getParent();
        if (p == null) return;
        if (!Files.isDirectory(p)) throw new BadInputException(path, "cannot write " + option + ": " + p + " is a file, not a folder");
        if (!Files.isWritable(p)) throw new BadInputException(path, "cannot write " + option + ": folder " + p + " is not writable");
    }

    /**
     * Refuses an output that is one of the inputs: the same file or folder after symbolic links
     * are followed, or for remote paths (staged by {@link Staging}) the same URI. {@code output}
     * null passes; null inputs are skipped.
     */
    static void notAnInput(String option, Path output, String what, Path... inputs) {
        if (output == null) return;
        String out = identity(output);
        for (Path in : inputs) {
            if (in != null && identity(in).equals(out)) {
                throw new BadInputException(output, "cannot write " + option + ": it is " + what + " (the output would replace an input)");
            }
        }
    }

    /** What a path names: its staged URI, else its real path (links followed; for a new file, its folder's real path and its name). */
    static String identity(Path p) {
        String uri = Staging.uriOf(p);
        if (uri != null) return uri.replaceAll("/+$", "");
        Path abs = p.toAbsolutePath().normalize();
        try {
            return abs.toRealPath().toString();
        } catch (java.io.IOException e) {
            Path parent = abs.getParent();
            if (parent == null) return abs.toString();
            try {
                return parent.toRealPath().resolve(abs.getFileName()).toString();
            } catch (java.io.IOException e2) {
                return abs.toString();
            }
        }
    }

    private static final Pattern SIZE = Pattern.compile("(\\d{1,5})[xX](\\d{1,5})");

    /** {@code --size HxW} of horses-data and predict: {height, width}, each at least 2. */
    static int[] workingSize(String size) {
        Matcher m = SIZE.matcher(size.trim());
        if (!m.matches()) throw new BadInputException("option '--size' must be HxW, e.g. 36x48, got '" + size + "'");
        int h = Integer.parseInt(m.group(1)), w = Integer.parseInt(m.group(2));
        if (h < 2 || w < 2) throw new BadInputException("option '--size' must be at least 2x2, got " + h + "x" + w);
        return new int[] {h, w};
    }

    /** {@code --features handmade|patch|rgb} with its {@code --cell} or {@code --patch}, as horses-data and predict read them. */
    static UnaryFeatures unaryFeatures(String features, int cell, int patch) {
        return UnaryFeatures.of(features, cell, patch);
    }
}
