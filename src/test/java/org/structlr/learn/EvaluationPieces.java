package org.structlr.learn;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Dataset;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;

/**
 * Not a test: where an evaluation's time goes. Trains (linear, linear) for 3 iterations on a data
 * set folder, then times, N times each, the pieces of one evaluation of the test set as
 * {@link BatchStates#evaluate} runs them (its potentials, setting them into the warm engine, K
 * sweeps, decoding, counting errors) and the objective on the training engine, printing the median
 * and the fastest of each in ms (the training set's evaluation is the same without the potentials,
 * which learning has already computed). Run with {@code java -cp
 * target/classes:target/test-classes:<classpath> org.structlr.learn.EvaluationPieces DATA N K}.
 */
public final class EvaluationPieces {
    public static void main(String[] a) {
        Dataset ds = Dataset.load(Path.of(a[0]));
        int n = Integer.parseInt(a[1]), sweeps = Integer.parseInt(a[2]);
        List<String> types = Training.pairTypeNames(ds.numPairTypes());
        ExampleBatch train = new ExampleBatch(ds.train(), ds.numLabels(), types), test = new ExampleBatch(ds.test(), ds.numLabels(), types);
        double eps = 0.1;
        LearnSettings s = new LearnSettings(3, eps, 25, 0, 1, 1);
        Functions[] last = new Functions[1];
        LearnListener keep = new LearnListener() {
            @Override public void onIteration(IterationRecord r, int total) {}
            @Override public boolean keepLearning(int it, Functions f) {
                last[0] = f;
                return true;
            }
        };
        try (Oracles o = Oracles.create(ds.summary(), org.structlr.oracle.FunctionSpec.unary("linear"), org.structlr.oracle.FunctionSpec.pairwise("linear"), s, 1)) {
            new AlternatingLearner(s, o.unary(), o.pair()).train(train, null, keep);
        }
        Functions f = last[0];
        String[] names = {"test unary potentials", "test pairwise potentials", "setPotentials", sweeps + " sweeps", "decode", "count errors", "objective (training engine)"};
        double[][] ms = new double[names.length][n];
        try (MessagePassing e = test.newEngine(eps); BatchStates states = new BatchStates(train, test, eps, false, EngineChoice.AUTO)) {
            states.start(f, null);
            for (int r = 0; r < n; r++) {
                long[] t = new long[names.length + 1];
                t[0] = System.nanoTime();
                INDArray u = Potentials.unary(test, f.unary(), eps);
                t[1] = System.nanoTime();
                INDArray p = Potentials.pairwise(test, f.pair(), eps);
                t[2] = System.nanoTime();
                e.setPotentials(u, p);
                t[3] = System.nanoTime();
                e.iterate(sweeps);
                t[4] = System.nanoTime();
                int[] d = e.decode();
                t[5] = System.nanoTime();
                Potentials.wrongAndLabelled(test, d);
                t[6] = System.nanoTime();
                states.objective();
                t[7] = System.nanoTime();
                for (int k = 0; k < names.length; k++) ms[k][r] = (t[k + 1] - t[k]) / 1e6;
            }
        }
        for (int k = 0; k < names.length; k++) {
            double[] x = ms[k].clone();
            Arrays.sort(x);
            System.out.printf(Locale.ROOT, "%-30s median %8.2f ms   fastest %8.2f ms%n", names[k], x[n / 2], x[0]);
        }
    }
}
