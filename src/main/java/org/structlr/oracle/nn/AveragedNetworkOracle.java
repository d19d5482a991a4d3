package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

import java.io.Serializable;
import org.nd4j.linalg.api.buffer.DataType;

/**
 * Hook for data-parallel fitting of the network classes (MLP, CNN) by synchronous parameter
 * averaging, used by the Spark learner: the driver takes the {@link #start} of a fit, every
 * partition runs {@link #fitLocal} (the oracle's own passes over its rows only) from that same
 * start, the driver averages the returned parameters and updater states weighted by row counts,
 * and {@link #finish} makes the averaged network the fitted function.
 *
 * <p>On one partition this is exactly {@link Oracle#fit}. Serializable: the partitions run the
 * oracle's own training code (only settings travel, no data).
 */
public interface AveragedNetworkOracle extends Oracle, Serializable {

    /** The network a fit starts from (the previous function's, or a fresh one), with its fit count. */
    NetworkState start(ScoreFunction previous, int numFeatures, int numClasses, DataType dataType);

    /**
     * The oracle's passes of mini-batch training on some of the rows, starting from {@code from};
     * the rows are reshuffled from the oracle's seed, the fit count and {@code part} (so partitions
     * shuffle differently and a rerun identically). {@code share} is this partition's fraction of all
     * rows: its mini-batches are the oracle's batch size times the share, so every partition takes as
     * many SGD steps per pass as the single-machine fit and the average of their steps is a step on
     * about the single machine's batch size. (Measured on the 4+4 32x32 denoising test set with two
     * partitions of full-size batches: half the steps per fit, and after 10 iterations of (mlp,
     * linear) a test error of 0.278 against one machine's 0.196.)
     */
    NetworkState fitLocal(NetworkState from, BiasedLogisticProblem rows, int part, double share, Round round);

    /**
     * Which part of a fit a call does: round {@code index} of {@code count} takes the steps
     * {@code [index/count, (index+1)/count)} of the partition's steps of the fit (all epochs), so a
     * fit can be averaged every few steps instead of once (more rounds: more Spark jobs, networks
     * that drift apart less between averages). {@link #WHOLE} is the whole fit.
     */
    record Round(int index, int count) implements Serializable {
        public static final Round WHOLE = new Round(0, 1);

        public Round {
            if (count < 1 || index < 0 || index >= count) throw new IllegalArgumentException("round " + index + " of " + count);
        }

        long from(long steps) {
            return steps * index / count;
        }

        long to(long steps) {
            return steps * (index + 1) / count;
        }
    }

    /** The mini-batch steps a whole fit on {@code rows} rows takes on one machine. */
    long stepsPerFit(long rows);

    /** The fitted function of an (averaged) state: counted as one more fit than its start. */
    ScoreFunction finish(NetworkState averaged);
}
