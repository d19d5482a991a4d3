package org.structlr.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.data.UaiEvidence;
import org.structlr.data.UaiReader;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.engines.Engines;
import org.structlr.inference.Deadline;
import org.structlr.inference.LabelingEnergy;
import org.structlr.inference.MapDecoder;
import org.structlr.inference.MapSearch;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;

/**
 * The real-model MAP benchmark behind the README's UAI tables (bench/uai/run.sh drives it):
 * <pre>
 *   UaiBench run MODELS LIST OUT VARIANT SECONDS   decode every model of LIST with VARIANT, appending OUT/VARIANT.tsv
 *   UaiBench best MODELS LIST SOLUTIONS OUT.tsv    energies of toulbar2's solutions (SOLUTIONS/NAME.sol, .log) and of
 *                                                  the models' reference .MAP files: the best known value of each model
 *   UaiBench table BEST.tsv OUT VARIANT...         the markdown table of the variants against the best known values
 *                                                  (a VARIANT "A|B": A's row where A has one, else B's)
 * </pre>
 * MODELS is a checkout of the UAI 2014 models (https://github.com/mroavi/uai); LIST names paths in
 * it (bench/uai/pairwise.txt, higher.txt); a model's {@code .evid} is used when it observes
 * anything. Energies are log-potentials (log-probability up to log Z) computed by {@link UaiReader}
 * from each file, for every solver alike. Every run stops by itself: each model gets at most
 * SECONDS of CPU time of the (single) inference thread for the decoding (reading excluded; CPU time,
 * so that the machine's other work does not shorten a model's run) and a model already in OUT/VARIANT.tsv is
 * skipped, so an interrupted run continues where it stopped.
 */
public final class UaiBench {
    private UaiBench() {}

    public static void main(String[] args) throws IOException {
        Locale.setDefault(Locale.ROOT);
        switch (args.length > 0 ? args[0] : "") {
            case "run" -> run(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), args[4], Double.parseDouble(args[5]));
            case "best" -> best(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]), Path.of(args[4]));
            case "table" -> table(Path.of(args[1]), Path.of(args[2]), List.of(args).subList(3, args.length));
            default -> {
                System.err.println("usage: UaiBench run MODELS LIST OUT VARIANT SECONDS | best MODELS LIST SOLUTIONS OUT.tsv | table BEST.tsv OUT VARIANT...");
                System.exit(2);
            }
        }
    }

    /** The model of {@code rel} with its evidence, if any. */
    static UaiReader.Model load(Path models, String rel) {
        Path file = models.resolve(rel);
        UaiReader.Model m = UaiReader.read(file);
        Path ev = Path.of(file + ".evid");
        if (Files.exists(ev)) {
            int[] obs = UaiEvidence.read(ev, m.cardinalities());
            boolean any = false;
            for (int o : obs) any |= o >= 0;
            if (any) m = m.withEvidence(obs, ev);
        }
        return m;
    }

    static String name(String rel) {
        String f = Path.of(rel).getFileName().toString();
        return f.endsWith(".uai") ? f.substring(0, f.length() - 4) : f;
    }

    static List<String> list(Path list) throws IOException {
        List<String> out = new ArrayList<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        for (String l : Files.readAllLines(list)) {
            if (l.isBlank() || l.startsWith("#")) continue;
            // results and toulbar2's files are keyed by the model's file name: two models may not share one
            if (!names.add(name(l.strip()))) throw new IllegalArgumentException(list + ": two models are named " + name(l.strip()));
            out.add(l.strip());
        }
        return out;
    }

    /** The decoders compared: today's default and the search with each part alone and together. */
    static final Map<String, MapSearch.Settings> VARIANTS = new LinkedHashMap<>();

    static {
        VARIANTS.put("round", null);                                                                   // --decode round, as before
        VARIANTS.put("local", new MapSearch.Settings(0.1, 0.5, 1, 0, true, true, 0, 1));               // rounding + local search
        VARIANTS.put("anneal", new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 0, true, false, 0, 1));
        VARIANTS.put("anneal-local", new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 0, true, true, 0, 1));
        VARIANTS.put("tighten", new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 20, true, true, 0, 1));
        VARIANTS.put("polish", new MapSearch.Settings(0.1, 0.5, 1, 0, true, true, 2000, 1));
        VARIANTS.put("search", new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 20, true, true, 2000, 1));
        // the search, then restarts until the budget is spent (what infer --time-limit runs)
        VARIANTS.put("restarts", new MapSearch.Settings(0.001, Math.sqrt(0.1), 500, 20, true, true, 2000, 1, MapSearch.Settings.UNTIL_DEADLINE));
        // with exact variable elimination (whole models that fit, elimination moves otherwise): infer's default, and with --time-limit
        VARIANTS.put("eliminate", InferCommand.SEARCH);
        VARIANTS.put("eliminate-restarts", InferCommand.SEARCH.withRestarts(MapSearch.Settings.UNTIL_DEADLINE));
    }

    static void run(Path models, Path listFile, Path out, String variant, double seconds) throws IOException {
        if (!VARIANTS.containsKey(variant)) throw new IllegalArgumentException("unknown variant " + variant + "; one of " + VARIANTS.keySet());
        Files.createDirectories(out);
        Path tsv = out.resolve(variant + ".tsv");
        List<String> done = new ArrayList<>();
        if (Files.exists(tsv)) for (String l : Files.readAllLines(tsv)) done.add(l.split("\t")[0]);
        else Files.writeString(tsv, "model\tvariables\tfactors\tlargest\tenergy\tbound\tcertified\twall_s\tcpu_s\tstages\n");
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        PrintWriter err = new PrintWriter(System.err, true);
        for (String rel : list(listFile)) {
            String name = name(rel);
            if (done.contains(name)) continue;
            String row;
            try {
                UaiReader.Model m = load(models, rel);
                FactorGraph g = m.graph();
                int largest = g.numEdges() > 0 ? 2 : 1;
                for (int r = 0; r < g.numRegions(); r++) largest = Math.max(largest, g.regionSize(r));
                LabelingEnergy energy = new LabelingEnergy(g, m.unaryArray(), m.pairwiseArray(), m.regionArray());
                long t0 = System.nanoTime(), c0 = mx.getCurrentThreadCpuTime();
                Deadline deadline = Deadline.threadCpu(seconds);
                StopRule stop = new StopRule(1000, 1e-6, InferCommand.CHECK_EVERY, deadline);
                double eps = 0.1;
                MapSearch.Settings s = VARIANTS.get(variant);
                double e, bound;
                boolean cert;
                String stages = "";
                try (MessagePassing mp = Engines.create(g, eps, DataType.DOUBLE)) {   // infer's --engine auto
                    mp.setPotentials(m.unary(DataType.DOUBLE), m.pairwise(DataType.DOUBLE), m.regions(DataType.DOUBLE));
                    if (s == null) {
                        MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.round, energy).run(mp, stop);
                        e = r.energy();
                        bound = Double.NaN;
                        cert = false;
                    } else {
                        MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.best, energy).run(mp, stop);
                        err.println(name + ":");
                        MapSearch.Result sr = new MapSearch(energy, (gr, ep) -> Engines.create(gr, ep, DataType.DOUBLE),
                                s, deadline, err).run(mp, r.labels());
                        e = sr.energy();
                        bound = sr.bound();
                        cert = sr.certified();
                        StringBuilder sb = new StringBuilder();
                        for (MapSearch.Stage st : sr.stages()) {
                            sb.append(sb.length() == 0 ? "" : "; ").append(String.format("%s@%.3g:%.4f/%.1fs", st.name(), st.eps(), st.energy(), st.seconds()));
                        }
                        stages = sb.toString();
                    }
                }
                double wall = (System.nanoTime() - t0) / 1e9, cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
                row = String.format("%s\t%d\t%d\t%d\t%.6f\t%.6f\t%s\t%.2f\t%.2f\t%s", name, g.numVariables(),
                        g.numVariables() + g.numEdges() + g.numRegions(), largest, e, bound, cert, wall, cpu, stages);
            } catch (RuntimeException | OutOfMemoryError ex) {
                row = name + "\tERROR\t\t\t\t\t\t\t\t" + ex.toString().replace('\t', ' ').replace('\n', ' ');
            }
            Files.writeString(tsv, row + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
            System.out.println(variant + " " + row.split("\t\\S*;")[0]);
        }
    }

    /** Best known values: the better of toulbar2's solution and the model's reference .MAP file, both scored here. */
    static void best(Path models, Path listFile, Path solutions, Path outTsv) throws IOException {
        StringBuilder s = new StringBuilder("model\ttoulbar2\ttoulbar2_status\treference\tbest\n");
        for (String rel : list(listFile)) {
            String name = name(rel);
            UaiReader.Model m = load(models, rel);
            double tb = Double.NaN, ref = Double.NaN;
            String status = "none";
            Path sol = solutions.resolve(name + ".sol"), log = solutions.resolve(name + ".log");
            if (Files.exists(sol)) {
                tb = score(m, Files.readString(sol).trim().split("\\s+"), 0);
                String l = Files.exists(log) ? Files.readString(log) : "";
                status = l.contains("\nOptimum:") || l.startsWith("Optimum:") ? "optimum" : "time limit";
            }
            Path mapFile = Path.of(models.resolve(rel) + ".MAP");
            if (Files.exists(mapFile)) {
                String[] t = Files.readString(mapFile).trim().split("\\s+");
                // "MAP", then n and the labels (possibly several solutions: the last one counts)
                int n = m.numVariables();
                if (t.length >= n + 2) ref = score(m, t, t.length - n);
            }
            double best = Double.isNaN(tb) ? ref : Double.isNaN(ref) ? tb : Math.max(tb, ref);
            s.append(String.format("%s\t%.6f\t%s\t%.6f\t%.6f%n", name, tb, status, ref, best));
        }
        Files.writeString(outTsv, s.toString());
        System.out.print(s);
    }

    private static double score(UaiReader.Model m, String[] tokens, int from) {
        int n = m.numVariables();
        if (tokens.length - from < n) return Double.NaN;
        int[] y = new int[n];
        for (int i = 0; i < n; i++) y[i] = Integer.parseInt(tokens[from + i]);
        return m.logPotential(y);
    }

    /** The markdown table: per model, each variant's energy (and bound), its gap to the best known, time; then the summary. */
    static void table(Path bestTsv, Path out, List<String> variants) throws IOException {
        Map<String, String[]> best = new LinkedHashMap<>();
        for (String l : Files.readAllLines(bestTsv).subList(1, Files.readAllLines(bestTsv).size())) best.put(l.split("\t")[0], l.split("\t"));
        Map<String, Map<String, String[]>> rows = new LinkedHashMap<>();
        for (String v : variants) {
            // "A|B": A's row of each model where A has one, else B's (a variant rerun on some models only)
            Map<String, String[]> r = new LinkedHashMap<>();
            List<String> parts = new ArrayList<>(List.of(v.split("\\|")));
            java.util.Collections.reverse(parts);
            for (String part : parts) {
                Path f = out.resolve(part + ".tsv");
                if (Files.exists(f)) for (String l : Files.readAllLines(f).subList(1, Files.readAllLines(f).size())) {
                    String[] row = l.split("\t", -1);
                    if (!part.equals(parts.get(parts.size() - 1))) row[row.length - 1] = "from " + part;   // shown beside the cell
                    r.put(row[0], row);
                }
            }
            rows.put(v, r);
        }
        StringBuilder s = new StringBuilder();
        s.append("| model | V | factors | largest | best known | ");
        for (String v : variants) s.append(v.replace("|", ", else ")).append(" (gap; wall / CPU s) | ");
        s.append("\n|---|---|---|---|---|").append("---|".repeat(variants.size())).append('\n');
        int[] within = new int[variants.size()], solved = new int[variants.size()], count = new int[variants.size()], cert = new int[variants.size()];
        double[] time = new double[variants.size()], cpu = new double[variants.size()];
        for (Map.Entry<String, String[]> b : best.entrySet()) {
            String name = b.getKey();
            double bk = Double.parseDouble(b.getValue()[4]);
            String[] any = null;
            for (String v : variants) if (rows.get(v).containsKey(name)) any = rows.get(v).get(name);
            if (any == null) continue;
            s.append("| ").append(name).append(" | ").append(any[1]).append(" | ").append(any[2]).append(" | ").append(any[3])
                    .append(" | ").append(String.format("%.4f%s", bk, b.getValue()[2].equals("optimum") ? " (opt)" : "")).append(" | ");
            for (int k = 0; k < variants.size(); k++) {
                String[] r = rows.get(variants.get(k)).get(name);
                if (r == null) { s.append("- | "); continue; }
                count[k]++;
                if (r[1].equals("ERROR")) { s.append("error | "); continue; }
                double e = Double.parseDouble(r[4]);
                double gap = (bk - e) / Math.max(Math.abs(bk), 1e-12);
                boolean ok = e >= bk - 0.01 * Math.abs(bk);
                if (Double.isFinite(e)) solved[k]++;
                if (ok) within[k]++;
                if (Boolean.parseBoolean(r[6])) cert[k]++;
                time[k] += Double.parseDouble(r[7]);
                cpu[k] += Double.parseDouble(r[8]);
                s.append(String.format("%.4f (%s%.2f%%%s) %.1f / %.1f s%s | ", e, gap <= 0 ? "" : "-", Math.abs(100 * gap), Boolean.parseBoolean(r[6]) ? ", proven" : "",
                        Double.parseDouble(r[7]), Double.parseDouble(r[8]), r[r.length - 1].startsWith("from ") ? " (" + r[r.length - 1].substring(5) + ")" : ""));
            }
            s.append('\n');
        }
        s.append("\n| variant | models | solved (finite energy) | within 1% of best known | proven optimal | mean seconds, wall / CPU |\n|---|---|---|---|---|---|\n");
        for (int k = 0; k < variants.size(); k++) {
            s.append(String.format("| %s | %d | %d | %d (%.0f%%) | %d | %.1f / %.1f |%n", variants.get(k).replace("|", ", else "), count[k], solved[k], within[k],
                    count[k] == 0 ? 0 : 100.0 * within[k] / count[k], cert[k], count[k] == 0 ? 0 : time[k] / count[k], count[k] == 0 ? 0 : cpu[k] / count[k]));
        }
        Files.writeString(out.resolve("table.md"), s.toString());
        System.out.print(s);
    }
}
