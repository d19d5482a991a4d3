package org.structlr.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.data.BadInputException;
import org.structlr.data.UaiReader;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.GraphMessagePassing;
import org.structlr.inference.LoopMessagePassing;
import org.structlr.inference.InferenceResult;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code structlr infer FILE.uai}: smoothed-LP marginals and decoded labels of a pairwise UAI
 * MARKOV network (DESIGN §1), written as JSON:
 *
 * <pre>
 * {"dual": .., "primal": .., "gap": .., "iterations": .., "converged": ..,
 *  "labels": [y_0, ..], "marginals": [[b_0(0), .., b_0(L_0 - 1)], ..]}
 * </pre>
 *
 * The marginals of each variable have that variable's own label count. The potentials are the
 * logs of the tables (constant, empty-scope factors dropped) and the dual is the smoothed dual of
 * DESIGN §1 for them, an upper bound on the smoothed LP value, tight when the gap is 0. A non-finite dual, primal or gap is
 * written as {@code null}. An output file is written to a temporary file in its folder and moved into
 * place atomically: a failed run leaves no output file and never a partial one.
 */
@Command(name = "infer", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Smoothed-LP inference (star-update message passing) on a pairwise UAI MARKOV file; "
                + "writes the dual, primal, gap, decoded labels and marginals as JSON.")
final class InferCommand implements Callable<Integer> {

    /** The duality gap is computed every this many sweeps when --tolerance > 0. */
    static final int CHECK_EVERY = 10;

    enum Engine { graph, loop }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE.uai", description = "A UAI MARKOV network with factors over 1 or 2 variables.")
    Path file;

    @Option(names = "--eps", paramLabel = "EPS", defaultValue = "0.1",
            description = "Entropy smoothing, > 0 (default: ${DEFAULT-VALUE}).")
    double eps;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "1000",
            description = "Most sweeps of star updates, >= 0 (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--tolerance", paramLabel = "GAP", defaultValue = "1e-6",
            description = "Stop when the duality gap (its absolute value), checked every " + CHECK_EVERY + " sweeps, is at most this; "
                    + "0 runs all iterations (default: ${DEFAULT-VALUE}).")
    double tolerance;

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the JSON here (atomically) instead of to standard output.")
    Path output;

    @Option(names = "--engine", paramLabel = "ENGINE", defaultValue = "graph",
            description = "One of ${COMPLETION-CANDIDATES}: graph = ND4J, batched by colour; loop = plain Java (default: ${DEFAULT-VALUE}).")
    Engine engine;

    @Override
    public Integer call() throws IOException {
        if (!(eps > 0) || Double.isInfinite(eps)) {
            throw new ParameterException(spec.commandLine(), "--eps must be a finite number greater than 0, got " + eps);
        }
        if (iterations < 0) {
            throw new ParameterException(spec.commandLine(), "--iterations must be at least 0, got " + iterations);
        }
        if (!(tolerance >= 0)) {
            throw new ParameterException(spec.commandLine(), "--tolerance must be at least 0, got " + tolerance);
        }
        Path out = output == null ? null : output.toAbsolutePath();
        if (out != null) checkWritable(out);

        UaiReader.Model model = UaiReader.read(file);
        FactorGraph g = model.graph();
        Map<String, Object> json = new LinkedHashMap<>();
        try (MessagePassing mp = newEngine(engine, g, eps)) {
            mp.setPotentials(model.unary(DataType.DOUBLE), model.pairwise(DataType.DOUBLE));
            InferenceResult r = mp.run(new StopRule(iterations, tolerance, CHECK_EVERY));
            double[][] beliefs = mp.unaryBeliefs().castTo(DataType.DOUBLE).toDoubleMatrix();
            int[] labels = mp.decode();
            double[][] marginals = new double[g.numVariables()][];
            for (int i = 0; i < g.numVariables(); i++) {
                marginals[i] = new double[g.numLabels(i)];
                for (int y = 0; y < g.numLabels(i); y++) {
                    double b = beliefs[i][y];
                    if (!Double.isFinite(b)) {
                        throw new IllegalStateException("inference produced a non-finite marginal " + b + " for variable " + i + " label " + y);
                    }
                    marginals[i][y] = b;
                }
            }
            json.put("dual", finiteOrNull(r.dual()));
            json.put("primal", finiteOrNull(r.primal()));
            json.put("gap", finiteOrNull(r.gap()));
            json.put("iterations", r.iterations());
            json.put("converged", r.converged());
            json.put("labels", labels);
            json.put("marginals", marginals);
        }

        ObjectMapper mapper = new ObjectMapper().disable(SerializationFeature.CLOSE_CLOSEABLE);
        byte[] bytes = (mapper.writerWithDefaultPrettyPrinter().writeValueAsString(json) + System.lineSeparator())
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (out == null) {
            PrintWriter w = spec.commandLine().getOut();
            w.print(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
            w.flush();
        } else {
            writeAtomically(out, bytes);
        }
        return Main.EXIT_OK;
    }


    private static Double finiteOrNull(double v) {
        return Double.isFinite(v) ? v : null;
    }

    /** Fails before any work when {@code out} cannot be an output file. */
    static void checkWritable(Path out) {
        Path dir = out.getParent();
        if (Files.isDirectory(out)) throw new BadInputException(out, "output is a directory");
        if (dir == null || !Files.isDirectory(dir)) throw new BadInputException(out, "output folder " + dir + " does not exist");
        if (!Files.isWritable(dir)) throw new BadInputException(out, "output folder " + dir + " is not writable");
    }

    /**
     * Writes {@code bytes} to a temporary file beside {@code out} and renames it into place
     * atomically (replacing an old file); on any failure the temporary file is removed and
     * {@code out} is untouched.
     */
    static void writeAtomically(Path out, byte[] bytes) throws IOException {
        Path target = out.toAbsolutePath();
        Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".tmp");
        try {
            try (OutputStream os = Files.newOutputStream(tmp)) {
                os.write(bytes);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot replace " + target + " atomically: " + e.getMessage(), e);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The engine of the given kind for {@code g} in double precision. */
    static MessagePassing newEngine(Engine kind, FactorGraph g, double eps) {
        Coloring c = Coloring.greedy(g);
        return switch (kind) {
            case graph -> new GraphMessagePassing(g, c, eps, DataType.DOUBLE);
            case loop -> new LoopMessagePassing(g, c, eps);
        };
    }
}
