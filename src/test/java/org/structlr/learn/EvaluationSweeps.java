package org.structlr.learn;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Dataset;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;
import org.structlr.model.Predictor;

/**
 * Not a test: what an evaluation's sweeps buy. Trains (linear, linear) on a data set folder with
 * the given evaluation settings and, after every evaluated iteration, runs beside the learner one
 * warm-started evaluation engine per variant (K sweeps from the previous evaluation's messages) on
 * the test and training sets, and a cold reference run to a duality gap of 1e-5 per variable
 * (what {@code evaluate} and {@code predict} do), printing each variant's errors and seconds. Run
 * with {@code java -cp target/classes:target/test-classes:<classpath> org.structlr.learn.EvaluationSweeps DATA ITERATIONS EVAL_EVERY K1,K2,... [noref]}
 * (variants: {@link #sweep}; {@code noref} leaves out the reference run).
 */
public final class EvaluationSweeps {
    /**
     * The variant's sweeps and decoded labels. "K": K sweeps. "aK": adaptive, up to K sweeps,
     * stopping after the first sweep (from the second on) whose decoded labels equal the previous
     * sweep's. "dK:tol": the same, and the dual moved by at most tol per variable over that sweep.
     * {@code used}: sweeps run and evaluations; {@code changed[s]}: labels that changed in sweep s + 1
     * (summed over evaluations; adaptive variants only).
     */
    static int[] sweep(MessagePassing mp, String variant, ExampleBatch b, long[] used, long[] changed) {
        if (Character.isDigit(variant.charAt(0))) {
            int k = Integer.parseInt(variant);
            mp.iterate(k);
            used[0] += k;
            used[1]++;
            return mp.decode();
        }
        boolean dual = variant.charAt(0) == 'd';
        String[] kt = variant.substring(1).split(":");
        int cap = Integer.parseInt(kt[0]);
        double tol = dual ? Double.parseDouble(kt[1]) : 0;
        int[] prev = null;
        double prevDual = dual ? mp.dual() : 0;
        for (int s = 1; ; s++) {
            mp.iterate(1);
            int[] now = mp.decode();
            double d = dual ? mp.dual() : 0;
            int ch = 0;
            if (prev != null) for (int v = 0; v < now.length; v++) if (now[v] != prev[v]) ch++;
            if (prev != null && s - 1 < changed.length) changed[s - 1] += ch;
            boolean flat = !dual || Math.abs(d - prevDual) <= tol * b.graph().numVariables();
            if (s >= cap || (prev != null && ch == 0 && flat)) {
                used[0] += s;
                used[1]++;
                return now;
            }
            prev = now;
            prevDual = d;
        }
    }

    public static void main(String[] a) {
        Dataset ds = Dataset.load(Path.of(a[0]));
        int iterations = Integer.parseInt(a[1]), every = Integer.parseInt(a[2]);
        String[] ks = a[3].split(",");
        List<String> types = Training.pairTypeNames(ds.numPairTypes());
        ExampleBatch train = new ExampleBatch(ds.train(), ds.numLabels(), types), test = new ExampleBatch(ds.test(), ds.numLabels(), types);
        double eps = 0.1;
        LearnSettings s = new LearnSettings(iterations, eps, 25, 0, every, 1);
        int n = ks.length;
        MessagePassing[] onTest = new MessagePassing[n], onTrain = new MessagePassing[n];
        double[] secTest = new double[n], secTrain = new double[n];
        long[][] used = new long[n][2], changed = new long[n][64];
        for (int k = 0; k < n; k++) {
            onTest[k] = test.newEngine(eps);
            onTrain[k] = train.newEngine(eps);
        }
        double[] learnSeconds = new double[1];
        long[] lastEnd = {System.nanoTime()};
        System.out.printf(Locale.ROOT, "%4s %9s", "it", "learn s");
        for (String k : ks) System.out.printf(Locale.ROOT, " %9s %9s", "test@" + k, "train@" + k);
        System.out.printf(Locale.ROOT, " %9s %9s %6s%n", "test ref", "train ref", "sweeps");
        LearnListener probe = new LearnListener() {
            @Override public void onIteration(IterationRecord r, int total) {}

            @Override
            public boolean keepLearning(int it, Functions f) {
                long t0 = System.nanoTime();
                learnSeconds[0] += (t0 - lastEnd[0]) / 1e9;
                if (!s.evaluates(it)) {
                    lastEnd[0] = System.nanoTime();
                    return true;
                }
                INDArray tu = Potentials.unary(test, f.unary(), eps), tp = Potentials.pairwise(test, f.pair(), eps);
                INDArray ru = Potentials.unary(train, f.unary(), eps), rp = Potentials.pairwise(train, f.pair(), eps);
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%4d %9.2f", it, learnSeconds[0]));
                for (int k = 0; k < n; k++) {
                    long x = System.nanoTime();
                    onTest[k].setPotentials(tu, tp);
                    double te = Potentials.error(test, sweep(onTest[k], ks[k], test, used[k], changed[k]));
                    long y = System.nanoTime();
                    onTrain[k].setPotentials(ru, rp);
                    double tr = Potentials.error(train, sweep(onTrain[k], ks[k], train, used[k], changed[k]));
                    long z = System.nanoTime();
                    secTest[k] += (y - x) / 1e9;
                    secTrain[k] += (z - y) / 1e9;
                    line.append(String.format(Locale.ROOT, " %9.5f %9.5f", te, tr));
                }
                if (a.length > 4 && a[4].equals("noref")) {
                    System.out.println(line);
                    lastEnd[0] = System.nanoTime();
                    return true;
                }
                int swept;
                try (MessagePassing ref = test.newEngine(eps); MessagePassing refTrain = train.newEngine(eps)) {
                    ref.setPotentials(tu, tp);
                    swept = ref.run(Predictor.defaultStop(test, 1000, 1e-5)).iterations();
                    refTrain.setPotentials(ru, rp);
                    refTrain.run(Predictor.defaultStop(train, 1000, 1e-5));
                    line.append(String.format(Locale.ROOT, " %9.5f %9.5f %6d", Potentials.error(test, ref.decode()), Potentials.error(train, refTrain.decode()), swept));
                }
                System.out.println(line);
                lastEnd[0] = System.nanoTime();
                return true;
            }
        };
        try (Oracles o = Oracles.create(ds.summary(), org.structlr.oracle.FunctionSpec.unary("linear"), org.structlr.oracle.FunctionSpec.pairwise("linear"), s, 1)) {
            new AlternatingLearner(s, o.unary(), o.pair()).train(train, null, probe);
        }
        System.out.printf(Locale.ROOT, "learning %.1f s;", learnSeconds[0]);
        for (int k = 0; k < n; k++) System.out.printf(Locale.ROOT, " K=%s: test %.2f s, train %.2f s, %.2f sweeps per set;", ks[k], secTest[k], secTrain[k], used[k][0] / (double) used[k][1]);
        System.out.println();
        for (int k = 0; k < n; k++) {
            if (Character.isDigit(ks[k].charAt(0))) continue;
            StringBuilder line = new StringBuilder("K=" + ks[k] + ": labels changed per evaluation in sweep 2, 3, ...:");
            for (int q = 1; q < changed[k].length && changed[k][q] > 0; q++) line.append(String.format(Locale.ROOT, " %.0f", changed[k][q] / (double) used[k][1]));
            System.out.println(line);
        }
    }
}
