package org.structlr.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.structlr.data.Example;
import org.structlr.model.ExampleBatch;

/**
 * One partition's examples (a contiguous range of example ids of one split) with the message state
 * the learner keeps for them between Spark stages. Everything Spark serialises is plain arrays:
 * the examples as {@link ExampleRecord}s and each engine's exact {@code MessagePassing.state()}.
 *
 * <p>{@code state} is the training engine's (train blocks), {@code evalState} the warm-started
 * evaluation engine's (train or test blocks); null means a fresh engine. {@code unaryBias} ([V, L],
 * (Delta - incoming messages) / eps) and {@code pairBias} ([E, L*L], edge order) are the rows' biases
 * for the next unary or pairwise fit; {@code messages} / {@code evalMessages} are the engines'
 * [E, 2, L] messages in natural units where known: from a checkpoint being resumed, or taken at the
 * end of an iteration whose state the driver saves (the single-machine learner's re-seated messages,
 * bit for bit); a later stage drops them.
 */
final class Block implements Serializable {
    final int index;
    final boolean test;
    final int firstExample;
    final ExampleRecord[] examples;
    final int numLabels;
    final String[] pairTypes;
    final float[] state, evalState, unaryBias, pairBias;
    final float[] messages, evalMessages;
    /** After an iteration: this block's sums of {@code BlockSteps.STATS} (else null). */
    final double[] stats;
    /** The examples as one batch, built once per executor that holds this block in memory. */
    private transient ExampleBatch batch;

    Block(int index, boolean test, int firstExample, ExampleRecord[] examples, int numLabels, String[] pairTypes,
          float[] state, float[] evalState, float[] unaryBias, float[] pairBias, float[] messages, float[] evalMessages,
          double[] stats) {
        this.index = index;
        this.test = test;
        this.firstExample = firstExample;
        this.examples = examples;
        this.numLabels = numLabels;
        this.pairTypes = pairTypes;
        this.state = state;
        this.evalState = evalState;
        this.unaryBias = unaryBias;
        this.pairBias = pairBias;
        this.messages = messages;
        this.evalMessages = evalMessages;
        this.stats = stats;
    }

    /** This block with new states and biases (the batch travels along in memory; the resume messages are spent). */
    Block with(float[] state, float[] evalState, float[] unaryBias, float[] pairBias) {
        return with(state, evalState, unaryBias, pairBias, null);
    }

    Block with(float[] state, float[] evalState, float[] unaryBias, float[] pairBias, double[] stats) {
        return with(state, evalState, unaryBias, pairBias, stats, null, null);
    }

    Block with(float[] state, float[] evalState, float[] unaryBias, float[] pairBias, double[] stats, float[] messages, float[] evalMessages) {
        Block b = new Block(index, test, firstExample, examples, numLabels, pairTypes, state, evalState, unaryBias, pairBias, messages, evalMessages, stats);
        b.batch = batch;
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
}
