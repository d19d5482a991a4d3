package org.structlr.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.structlr.data.Example;
import org.structlr.learn.BatchStates;
import org.structlr.learn.Functions;
import org.structlr.learn.Targets;
import org.structlr.model.ExampleBatch;

/**
 * One partition's examples (a contiguous range of example ids of one split) with the engine states
 * the learner keeps for them between Spark stages. Everything Spark serialises is plain arrays: the
 * examples as {@link ExampleRecord}s, the engines' exact states and the line start as a
 * {@link BatchStates.Snapshot}, and the biases of the current fit.
 *
 * <p>{@code unaryBias} ([V, L], (Delta - incoming messages) / eps) and {@code pairBias}
 * ([E, L*L], edge order, (lambda_i + lambda_j) / eps) are the rows' biases of the fit being made
 * (null otherwise): computed once per fit phase, read by every evaluation of a distributed fit.
 */
final class Block implements Serializable {
    final int index;
    final boolean test;
    final int firstExample;
    final ExampleRecord[] examples;
    final int numLabels;
    final String[] pairTypes;
    final BatchStates.Snapshot snapshot;
    final float[] unaryBias, pairBias;
    /** The examples as one batch and its targets, built once per executor that holds this block in memory. */
    private transient ExampleBatch batch;
    private transient Targets targets;

    Block(int index, boolean test, int firstExample, ExampleRecord[] examples, int numLabels, String[] pairTypes,
          BatchStates.Snapshot snapshot, float[] unaryBias, float[] pairBias) {
        this.index = index;
        this.test = test;
        this.firstExample = firstExample;
        this.examples = examples;
        this.numLabels = numLabels;
        this.pairTypes = pairTypes;
        this.snapshot = snapshot;
        this.unaryBias = unaryBias;
        this.pairBias = pairBias;
    }

    /** This block with new engine states (the batch travels along in memory; the biases are spent). */
    Block with(BatchStates.Snapshot s) {
        return copy(s, null, null);
    }

    /** This block with the biases of a fit. */
    Block withBiases(float[] unary, float[] pair) {
        return copy(snapshot, unary, pair);
    }

    private Block copy(BatchStates.Snapshot s, float[] u, float[] p) {
        Block b = new Block(index, test, firstExample, examples, numLabels, pairTypes, s, u, p);
        b.batch = batch;
        b.targets = targets;
        return b;
    }

    ExampleBatch batch() {
        if (batch == null) {
            List<Example> list = new ArrayList<>(examples.length);
            for (ExampleRecord r : examples) list.add(r.example());
            batch = new ExampleBatch(list, numLabels, List.of(pairTypes));
        }
        return batch;
    }

    /**
     * This block's {@link BatchStates} at {@code functions}, restored from its snapshot: a training
     * block holds the training engine (and the training-set evaluation engine), a test block the
     * test-set evaluation engine. Close it after use.
     */
    BatchStates states(double eps, boolean evaluation, Functions functions) {
        if (test) return BatchStates.restore(null, null, batch(), eps, evaluation, functions, snapshot);
        if (targets == null) targets = Targets.of(batch());
        return BatchStates.restore(batch(), targets, null, eps, evaluation, functions, snapshot);
    }
}
