package org.structlr.spark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.nd4j.linalg.api.buffer.DataType;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.fcn.FcnDataParallel;
import org.structlr.oracle.ScoreFunction;

/**
 * The fully convolutional classes on Spark: whole images stay in their partitions (a block holds
 * whole examples), and a fit is synchronous parameter averaging once per epoch
 * ({@link FcnDataParallel}): the driver broadcasts the network's bytes, every training block runs
 * the oracle's epoch on its own images, the driver averages the networks weighted by the blocks'
 * row counts in block order (so a rerun or a recomputed partition gives the same bits). The
 * oracle's descent check runs on the loss summed over the blocks (one Spark job before the fit and
 * one after each try): a fit that raises it is redone at half the step, as on one machine. What
 * moves per epoch: one network each way per block (about 160 KB for the default network), never
 * the pixels.
 */
final class FcnFits {
    private FcnFits() {}

    static ScoreFunction fit(FcnDataParallel fcn, JavaRDD<Block> blocks, int type, int classes, ScoreFunction previous) {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(blocks.context());
        JavaRDD<Block> train = blocks.filter(b -> !b.test);
        int d = train.map(b -> (int) b.batch().unaryFeatures().size(1)).first();
        double n = train.map(b -> (double) DistributedFits.labels(b.batch(), type).length).reduce(Double::sum);
        FcnDataParallel.Start start = fcn.start(previous, d, classes, DataType.FLOAT);
        if (!fcn.descentCheck()) return fcn.finish(train(fcn, sc, train, type, classes, n, start.network(), start.fits()), start.fits());
        double before = loss(fcn, sc, train, type, classes, start.network());
        double rate = fcn.learningRate(start.network());
        for (int attempt = 0; attempt <= fcn.maxHalvings(); attempt++) {
            byte[] from = attempt == 0 ? start.network() : fcn.withLearningRate(start.network(), rate);
            byte[] fitted = train(fcn, sc, train, type, classes, n, from, start.fits());
            if (loss(fcn, sc, train, type, classes, fitted) <= before) {
                return fcn.finish(attempt == 0 ? fcn.acceptedAtFirstTry(fitted) : fitted, start.fits());
            }
            rate /= 2;
        }
        return fcn.finish(fcn.withLearningRate(start.network(), rate), start.fits());
    }

    /** The oracle's epochs, each followed by the row-weighted average of the blocks' networks. */
    private static byte[] train(FcnDataParallel fcn, JavaSparkContext sc, JavaRDD<Block> train, int type, int classes, double n,
                                byte[] from, int fits) {
        byte[] net = from;
        for (int epoch = 0; epoch < fcn.epochsPerFit(); epoch++) {
            Broadcast<byte[]> start = sc.broadcast(net);
            int e = epoch;
            try {
                List<Trained> parts = new ArrayList<>(train.map(b -> {
                    BiasedLogisticProblem rows = problem(b, type, classes);
                    if (rows.numRows() == 0) return new Trained(b.index, 0, null);
                    return new Trained(b.index, rows.numRows(), fcn.epoch(start.value(), rows, b.index, rows.numRows() / n, fits, e));
                }).collect());
                parts.removeIf(t -> t.rows() == 0);
                parts.sort(Comparator.comparingInt(Trained::block));
                double[] w = new double[parts.size()];
                for (int k = 0; k < w.length; k++) w[k] = parts.get(k).rows();
                net = fcn.average(parts.stream().map(Trained::network).toList(), w);
            } finally {
                start.destroy();
            }
        }
        return net;
    }

    /** The biased loss summed over the training blocks (in block order) of a network. */
    private static double loss(FcnDataParallel fcn, JavaSparkContext sc, JavaRDD<Block> train, int type, int classes, byte[] network) {
        Broadcast<byte[]> net = sc.broadcast(network);
        try {
            return DistributedFits.sumInBlockOrder(train.map(b -> new DistributedFits.Indexed(b.index,
                    new double[] {fcn.loss(net.value(), problem(b, type, classes))})).collect())[0];
        } finally {
            net.destroy();
        }
    }

    /** A block's rows of the type, placed in its whole images. */
    private static BiasedLogisticProblem problem(Block b, int type, int classes) {
        return DistributedFits.problem(b, type, classes).withImages(b.batch().imageRows(type));
    }

    /** A block's network after an epoch, with its row count (its weight in the average). */
    record Trained(int block, long rows, byte[] network) implements java.io.Serializable {}
}
