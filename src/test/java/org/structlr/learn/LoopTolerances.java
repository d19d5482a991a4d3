package org.structlr.learn;

import java.nio.file.Path;
import java.util.List;
import org.structlr.data.Dataset;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.linear.LinearOracle;
import org.structlr.oracle.Oracle;

/**
 * Not a test: (linear, linear) learning on a data set folder with a given L-BFGS stopping rule,
 * printing per evaluated iteration the objective, the errors, and the L-BFGS iterations and loss
 * evaluations of the last unary and pairwise fits, then the seconds per phase. Run with
 * {@code java -cp target/classes:target/test-classes:<classpath> org.structlr.learn.LoopTolerances DATA ITERATIONS GRAD_TOL REL_DECREASE THREADS [EVAL_EVERY]}.
 */
public final class LoopTolerances {
    public static void main(String[] a) {
        Dataset ds = Dataset.load(Path.of(a[0]));
        int iterations = Integer.parseInt(a[1]);
        double gradTol = Double.parseDouble(a[2]), rel = Double.parseDouble(a[3]);
        int threads = Integer.parseInt(a[4]);
        int evalEvery = a.length > 5 ? Integer.parseInt(a[5]) : 1;
        List<String> types = Training.pairTypeNames(ds.numPairTypes());
        ExampleBatch train = new ExampleBatch(ds.train(), ds.numLabels(), types), test = new ExampleBatch(ds.test(), ds.numLabels(), types);
        LinearOracle u = new LinearOracle(gradTol, rel, 200, 12345L, threads);
        List<LinearOracle> ps = new java.util.ArrayList<>();
        for (int t = 0; t < types.size(); t++) ps.add(new LinearOracle(gradTol, rel, 200, 12345L, threads));
        LearnSettings s = new LearnSettings(iterations, 0.1, 25, 50, evalEvery, 1);
        int[] sums = new int[4];
        LearnListener l = new LearnListener() {
            @Override public void onProgress(int it, int total) {
                int[] cu = u.lastFitCounts(), cp = new int[2];
                for (LinearOracle p : ps) { cp[0] += p.lastFitCounts()[0]; cp[1] += p.lastFitCounts()[1]; }
                sums[0] += cu[0]; sums[1] += cu[1]; sums[2] += cp[0]; sums[3] += cp[1];
                System.out.printf("it %3d  unary %3d its %3d evals  pair %3d its %3d evals%n", it, cu[0], cu[1], cp[0], cp[1]);
            }
            @Override public void onIteration(IterationRecord r, int total) {
                System.out.printf("  row %3d  R %.8f  train %.5f  test %.5f  %.1f s%n", r.iteration(), r.objective(), r.trainError(), r.testError(), r.seconds());
            }
        };
        AlternatingLearner.Result r = new AlternatingLearner(s, u, List.<Oracle>copyOf(ps)).train(train, test, l);
        System.out.printf("grad tol %g rel %g threads %d: fits %.1f s, passing %.1f s, evaluation %.1f s; evaluations unary %d pair %d (its %d/%d)%n",
                gradTol, rel, threads, r.fitSeconds(), r.passingSeconds(), r.evalSeconds(), sums[1], sums[3], sums[0], sums[2]);
    }
}
