package org.structlr.metrics;

import java.util.ArrayList;
import java.util.List;
import org.structlr.data.Example;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;
import org.structlr.model.ExampleBatch;
import org.structlr.model.Potentials;
import org.structlr.oracle.ScoreFunction;

/**
 * Validation during learning ({@code train --val-every K --patience P}): every K-th iteration the
 * current functions label the val split (message passing warm-started from the previous check's
 * messages, until the duality gap per variable is below {@link #TOLERANCE} or {@code sweeps}
 * sweeps), and the metrics of {@link ConfusionMatrix} are recorded. The functions of the check with
 * the highest val mean IoU (ties: the earlier one) are kept as the best model; after {@code patience}
 * checks in a row without a better mean IoU, {@link Check#stop()} asks the learner to stop
 * (patience 0: never).
 *
 * <p>Keeping functions by reference is safe: an oracle continues from a copy of the function it is
 * given, never changing it. The engine is the batch's own ({@link ExampleBatch#newEngine}); close this
 * when done.
 */
public final class Validation implements AutoCloseable {
    /** Duality gap per variable at which a check's message passing stops early. */
    public static final double TOLERANCE = 1e-5;

    private final ExampleBatch val;
    private final double eps;
    private final int every;
    private final int patience;
    private final int sweeps;
    private final MessagePassing engine;
    private final List<Check> history = new ArrayList<>();
    private Check best;
    private ScoreFunction bestUnary;
    private List<ScoreFunction> bestPair;
    private int sinceBest;

    /** One check: the iteration, its val confusion matrix, whether it is the best so far, and whether to stop. */
    public record Check(int iteration, ConfusionMatrix confusion, boolean best, boolean stop, double seconds) {
        public double meanIou() { return confusion.meanIou(); }
    }

    /**
     * @param val      the val examples (labelled; void allowed)
     * @param every    check after every {@code every}-th iteration (and the last: {@link #due})
     * @param patience checks without improvement before stopping; 0 never stops
     * @param sweeps   most sweeps per check
     */
    public Validation(List<Example> val, int numLabels, List<String> pairTypes, double eps, int every, int patience, int sweeps) {
        if (val.isEmpty()) throw new IllegalArgumentException("validation needs val examples");
        if (every < 1) throw new IllegalArgumentException("validation every " + every + " iterations: need at least 1");
        if (patience < 0) throw new IllegalArgumentException("patience must be at least 0, got " + patience);
        if (sweeps < 1) throw new IllegalArgumentException("validation sweeps must be at least 1, got " + sweeps);
        for (Example e : val) if (!e.hasLabels()) throw new IllegalArgumentException(e.name() + ": a val example has no labels");
        this.val = new ExampleBatch(val, numLabels, pairTypes);
        this.eps = eps;
        this.every = every;
        this.patience = patience;
        this.sweeps = sweeps;
        this.engine = this.val.newEngine(eps);
    }

    /** Whether iteration {@code it} of {@code total} is checked: every {@code every}-th and the last. */
    public boolean due(int it, int total) {
        return it % every == 0 || it == total;
    }

    /** Checks the functions after iteration {@code it} (null functions are g = 0). */
    public Check check(int it, ScoreFunction unary, List<ScoreFunction> pair) {
        long t0 = System.nanoTime();
        engine.setPotentials(Potentials.unary(val, unary, eps), Potentials.pairwise(val, pair, eps));
        engine.run(new StopRule(sweeps, TOLERANCE * val.graph().numVariables(), 10));
        ConfusionMatrix c = ConfusionMatrix.of(val.labels(), engine.decode(), val.numLabels());
        boolean better = best == null || c.meanIou() > best.meanIou() || (Double.isNaN(best.meanIou()) && !Double.isNaN(c.meanIou()));
        if (better) {
            sinceBest = 0;
            bestUnary = unary;
            bestPair = new ArrayList<>(pair);
        } else {
            sinceBest++;
        }
        Check k = new Check(it, c, better, patience > 0 && sinceBest >= patience, (System.nanoTime() - t0) / 1e9);
        if (better) best = k;
        history.add(k);
        return k;
    }

    public List<Check> history() { return List.copyOf(history); }

    /** The best check so far, or null before the first. */
    public Check best() { return best; }

    /** The unary function of the best check. */
    public ScoreFunction bestUnary() { return bestUnary; }

    /** The pairwise functions of the best check. */
    public List<ScoreFunction> bestPair() { return bestPair == null ? null : java.util.Collections.unmodifiableList(bestPair); }

    @Override
    public void close() {
        engine.close();
    }
}
