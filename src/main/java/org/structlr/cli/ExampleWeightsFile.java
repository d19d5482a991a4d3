package org.structlr.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.data.InputLimits;

/**
 * The {@code --example-weights} file: one line {@code NAME WEIGHT} per weighted training example,
 * NAME its file name in the data set's {@code train/} folder (with or without {@code .npz}),
 * WEIGHT finite and {@code >= 0}; blank lines and text after {@code #} are ignored; examples not
 * listed weigh 1. Every problem is one error naming the file and line.
 */
final class ExampleWeightsFile {
    private ExampleWeightsFile() {}

    /** One weight per example of {@code train}, in its order. */
    static double[] read(Path file, List<Example> train) {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw new BadInputException(file, "cannot read --example-weights: " + e.getMessage());
        }
        long limit = InputLimits.JSON_BYTES.value();
        if (size > limit) throw new BadInputException(file, "--example-weights is " + size + " bytes, more than the limit " + limit);
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);   // size checked above
        } catch (IOException e) {
            throw new BadInputException(file, "cannot read --example-weights: " + e.getMessage(), e);
        }
        Map<String, Integer> index = new HashMap<>();
        for (int k = 0; k < train.size(); k++) {
            String n = Path.of(train.get(k).name()).getFileName().toString();
            index.put(n, k);
            if (n.endsWith(".npz")) index.put(n.substring(0, n.length() - 4), k);
        }
        double[] w = new double[train.size()];
        java.util.Arrays.fill(w, 1);
        boolean[] seen = new boolean[train.size()];
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) line = line.substring(0, hash);
            line = line.strip();
            if (line.isEmpty()) continue;
            String[] f = line.split("\\s+");
            String where = "line " + (i + 1) + ": ";
            if (f.length != 2) throw new BadInputException(file, where + "expected 'NAME WEIGHT', got '" + line + "'");
            Integer k = index.get(f[0]);
            if (k == null) throw new BadInputException(file, where + "no training example named " + f[0]);
            if (seen[k]) throw new BadInputException(file, where + f[0] + " is listed twice");
            double v;
            try {
                v = Double.parseDouble(f[1]);
            } catch (NumberFormatException e) {
                throw new BadInputException(file, where + "weight '" + f[1] + "' is not a number");
            }
            if (!(v >= 0) || !Double.isFinite(v)) throw new BadInputException(file, where + "weight " + f[1] + " of " + f[0] + " is not finite and >= 0");
            seen[k] = true;
            w[k] = v;
        }
        return w;
    }
}
