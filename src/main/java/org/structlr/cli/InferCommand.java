package org.structlr.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.UaiEvidence;
import org.structlr.data.UaiReader;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.engines.Engines;
import org.structlr.inference.Deadline;
import org.structlr.inference.InferenceResult;
import org.structlr.inference.LabelingEnergy;
import org.structlr.inference.MapDecoder;
import org.structlr.inference.MapSearch;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code structlr infer FILE.uai}: smoothed-LP marginals and decoded labels of a UAI MARKOV or
 * BAYES network with factors over any number of variables (docs/design.md §1; a BAYES network's CPTs are its
 * factors). {@code --format json} (the default) writes
 *
 * <pre>
 * {"dual": .., "primal": .., "gap": .., "iterations": .., "converged": ..,
 *  "decoder": "round", "energy": E(labels), "feasible": true,
 *  "labels": [y_0, ..], "marginals": [[b_0(0), .., b_0(L_0 - 1)], ..]}
 * </pre>
 *
 * {@code --format uai-mar} and {@code uai-map} write the UAI 2014 competition's result files:
 * {@code "MAR"} then one line {@code n  L_0 b_0(0) .. b_0(L_0-1)  L_1 ..}, or {@code "MAP"} then
 * {@code n y_0 .. y_{n-1}}. {@code --evidence FILE.evid} clamps the observed variables (their other
 * labels become impossible) before inference.
 *
 * <p>The marginals of each variable have that variable's own label count (1 for a single-label
 * variable). The potentials are the logs of the tables (constant, empty-scope factors dropped) and
 * the dual is the smoothed dual of docs/design.md §1 for them, an upper bound on the smoothed LP value,
 * tight when the gap is 0. The energy is {@code sum_i theta_i(y_i) + sum_a theta_a(y_i, y_j) + sum_r theta_r(y_r)} of the
 * labels, the log-probability up to log Z; when the labels break a hard constraint it is minus
 * infinity, written as {@code null} with {@code "feasible": false}. A non-finite dual, primal or gap
 * is written as {@code null}. An output file is written through {@link AtomicFiles}: a failed run
 * leaves no output file and never a partial one.
 */
@Command(name = "infer", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Smoothed-LP inference (star-update message passing) on a UAI MARKOV or BAYES file (factors over any number of variables); "
                + "writes the dual, primal, gap, decoded labels, their energy and the marginals as JSON, "
                + "or the UAI competition's MAR / MAP result files.")
final class InferCommand implements Callable<Integer> {

    /** The duality gap is computed every this many sweeps when --tolerance > 0. */
    static final int CHECK_EVERY = 10;

    /** The decoders: {@link MapDecoder}'s kinds and the {@link MapSearch} on top of them. */
    enum Decoder { argmax, best, icm, round, search }

    /** The search's settings (measured on the UAI 2014 models: bench/uai, docs/wave3/regions.md). */
    static final MapSearch.Settings SEARCH = new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 20, true, true, 2000, 1)
            .withElimination(MapSearch.Settings.ELIMINATION_ENTRIES);

    enum Format {
        json, uai_mar, uai_map;

        @Override public String toString() { return name().replace('_', '-'); }
    }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE.uai", description = "A UAI MARKOV or BAYES network (factors over any number of variables).")
    Path file;

    @Option(names = "--evidence", paramLabel = "FILE.evid",
            description = "Evidence: observed variables and their labels (UAI 2014 one-line form, or the older form with a leading sample count of 1).")
    Path evidence;

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

    @Option(names = "--decode", paramLabel = "DECODER", defaultValue = "search",
            description = "How labels are decoded: argmax = of the final beliefs; best = best energy over the sweeps' argmaxes; "
                    + "icm = best, then ICM local search; round = also rounding that fixes the most confident variables in blocks "
                    + "and re-runs a few sweeps, then ICM (the better of round and icm); search = first exact variable elimination "
                    + "where its tables fit (a proven MAP; with --time-limit in at most a quarter of it), else round, then eps annealed towards "
                    + "0.001 with warm messages, frustrated cycles added as regions, and local search (forest moves, elimination moves "
                    + "on blocks, fusion, iterated local search) until nothing improves, with --time-limit restarted until the limit. "
                    + "One of ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    Decoder decode;

    @Option(names = "--time-limit", paramLabel = "SECONDS",
            description = "Stop sweeping and decoding after this many seconds of wall-clock time (counted after the file is read) "
                    + "and report the best labels found; default: no limit.")
    Double timeLimit;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "json", converter = FormatConverter.class,
            description = "json, uai-mar (UAI competition marginals) or uai-map (UAI competition labels) (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--output", paramLabel = "FILE",
            description = "Write the result here (atomically) instead of to standard output.")
    Path output;

    /** The engine, in double precision: a UAI model is no image, so auto is the loop engine for small models, else ND4J's graph engine. */
    @picocli.CommandLine.Mixin
    EngineOptions engine;

    static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            for (Format f : Format.values()) if (f.toString().equals(value)) return f;
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not one of json, uai-mar, uai-map");
        }
    }

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
        if (timeLimit != null && !(timeLimit > 0 && timeLimit < 1e9)) {
            throw new ParameterException(spec.commandLine(), "--time-limit must be a number of seconds greater than 0, got " + timeLimit);
        }
        Path out = output == null ? null : output.toAbsolutePath();
        if (out != null) checkWritable(out);
        CliChecks.notAnInput("--output", out, "the model file", file);
        CliChecks.notAnInput("--output", out, "the evidence file", evidence);

        UaiReader.Model model = org.structlr.data.Reading.guard(file, () -> UaiReader.read(file));
        if (evidence != null) {
            int[] card = new int[model.numVariables()];
            for (int i = 0; i < card.length; i++) card[i] = model.cardinality(i);
            model = model.withEvidence(org.structlr.data.Reading.guard(evidence, () -> UaiEvidence.read(evidence, card)), evidence);
        }
        FactorGraph g = model.graph();
        INDArray unary = model.unary(DataType.DOUBLE), pairwise = model.pairwise(DataType.DOUBLE), regions = model.regions(DataType.DOUBLE);
        LabelingEnergy energy = new LabelingEnergy(g, model.unaryArray(), model.pairwiseArray(), model.regionArray());
        Deadline deadline = timeLimit == null ? Deadline.NONE : Deadline.wall(timeLimit);
        StopRule stop = new StopRule(iterations, tolerance, CHECK_EVERY, deadline);
        MapDecoder.Result res;
        MapSearch.Result search = null;
        engine.check(g, null);
        try (MessagePassing mp = Engines.create(engine.engine, g, null, eps, DataType.DOUBLE)) {
            mp.setPotentials(unary, pairwise, regions);
            MapDecoder.Kind kind = decode == Decoder.search ? MapDecoder.Kind.best : MapDecoder.Kind.valueOf(decode.name());
            res = new MapDecoder(kind, energy).run(mp, stop);
            if (decode == Decoder.search) {
                PrintWriter err = spec.commandLine().getErr();
                // with a time limit the search restarts until it passes (MapSearch.Settings.restarts)
                MapSearch.Settings settings = timeLimit == null ? SEARCH : SEARCH.withRestarts(MapSearch.Settings.UNTIL_DEADLINE);
                search = new MapSearch(energy, (graph, e) -> Engines.create(engine.engine, graph, null, e, DataType.DOUBLE), settings, deadline, err).run(mp, res.labels());
            }
        }
        double[][] beliefs = res.beliefs().toDoubleMatrix();
        double[][] marginals = new double[g.numVariables()][];
        for (int i = 0; i < g.numVariables(); i++) {
            marginals[i] = new double[model.cardinality(i)];
            for (int y = 0; y < model.cardinality(i); y++) {
                double b = beliefs[i][y];
                if (!Double.isFinite(b)) {
                    throw new IllegalStateException("inference produced a non-finite marginal " + b + " for variable " + i + " label " + y);
                }
                marginals[i][y] = b;
            }
        }
        String text = switch (format) {
            case json -> json(res, search, marginals);
            case uai_mar -> uaiMar(marginals);
            case uai_map -> uaiMap(search == null ? res.labels() : search.labels());
        };
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (out == null) {
            PrintWriter w = spec.commandLine().getOut();
            w.print(text);
            w.flush();
        } else {
            AtomicFiles.write(out, os -> os.write(bytes));
        }
        return Main.EXIT_OK;
    }

    private String json(MapDecoder.Result res, MapSearch.Result search, double[][] marginals) throws IOException {
        InferenceResult r = res.inference();
        double energy = search == null ? res.energy() : search.energy();
        double bound = search == null ? res.bound() : Math.min(res.bound(), search.bound());
        int[] labels = search == null ? res.labels() : search.labels();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("dual", finiteOrNull(r.dual()));
        json.put("primal", finiteOrNull(r.primal()));
        json.put("gap", finiteOrNull(r.gap()));
        json.put("iterations", r.iterations());
        json.put("converged", r.converged());
        json.put("decoder", decode.name());
        json.put("energy", finiteOrNull(energy));
        json.put("feasible", energy > Double.NEGATIVE_INFINITY);
        json.put("bound", finiteOrNull(bound));
        json.put("certified", energy > Double.NEGATIVE_INFINITY && bound - energy <= 1e-9 * Math.max(1, Math.abs(bound)));
        if (search != null) {
            java.util.List<Map<String, Object>> stages = new java.util.ArrayList<>();
            for (MapSearch.Stage st : search.stages()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("stage", st.name());
                m.put("eps", st.eps());
                m.put("sweeps", st.sweeps());
                m.put("energy", finiteOrNull(st.energy()));
                m.put("bound", finiteOrNull(st.bound()));
                m.put("seconds", st.seconds());
                stages.add(m);
            }
            json.put("stages", stages);
        }
        json.put("labels", labels);
        json.put("marginals", marginals);
        ObjectMapper mapper = new ObjectMapper().disable(SerializationFeature.CLOSE_CLOSEABLE);
        return mapper.writerWithDefaultPrettyPrinter().writeValueAsString(json) + System.lineSeparator();
    }

    /** UAI 2014 MAR result: "MAR", then n and, per variable, its label count and marginals, on one line. */
    static String uaiMar(double[][] marginals) {
        StringBuilder s = new StringBuilder("MAR\n").append(marginals.length);
        for (double[] m : marginals) {
            s.append(' ').append(m.length);
            for (double p : m) s.append(' ').append(p);
        }
        return s.append('\n').toString();
    }

    /** UAI 2014 MAP result: "MAP", then n and the labels on one line. */
    static String uaiMap(int[] labels) {
        StringBuilder s = new StringBuilder("MAP\n").append(labels.length);
        for (int y : labels) s.append(' ').append(y);
        return s.append('\n').toString();
    }

    private static Double finiteOrNull(double v) {
        return Double.isFinite(v) ? v : null;
    }

    /** Fails before any work when {@code out} cannot be an output file: its folder must exist ({@link CliChecks#output} for the rest). */
    static void checkWritable(Path out) {
        Path dir = out.toAbsolutePath().getParent();
        if (dir != null && !Files.exists(dir)) throw new BadInputException(out, "cannot write --output: folder " + dir + " does not exist");
        CliChecks.output("--output", out, false);
    }

    /** Writes {@code bytes} to {@code out} through {@link AtomicFiles} (kept for BenchCommand). */
    static void writeAtomically(Path out, byte[] bytes) throws IOException {
        AtomicFiles.write(out, os -> os.write(bytes));
    }
}
