package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticLoss;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroScore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** Helpers shared by the DL4J-backed score functions and oracles. */
public final class Nets {

    public static final String MODEL_FILE = "model.zip";

    private Nets() {
    }

    /** g(X) by a network whose output layer is IDENTITY, in the features' data type. */
    public static INDArray output(MultiLayerNetwork net, INDArray features) {
        DataType netType = net.params().dataType();
        INDArray in = features.dataType() == netType ? features : features.castTo(netType);
        INDArray out;
        synchronized (net) {                       // DL4J networks are not safe for concurrent use
            out = net.output(in, false);
        }
        return out.dataType() == features.dataType() ? out : out.castTo(features.dataType());
    }

    /** Gradient of the mean loss with respect to the scores S [N, C]: (softmax(S + B) - Y) / N ({@link BiasedLogisticLoss#gradient}; N the total weight). */
    public static INDArray scoreGradient(INDArray scores, BiasedLogisticProblem p) {
        INDArray z = scores.add(p.bias().castTo(scores.dataType()));
        return BiasedLogisticLoss.gradient(z, p.targetMatrix()).divi(p.totalWeight());
    }

    public static void save(MultiLayerNetwork net, Path dir) throws IOException {
        Files.createDirectories(dir);
        NetworkFiles.write(net, dir.resolve(MODEL_FILE), true);
    }

    public static MultiLayerNetwork load(Path dir) throws IOException {
        return NetworkFiles.readMultiLayer(dir.resolve(MODEL_FILE), true);
    }

    /** Where a network oracle's fit starts: the network to train and how many fits it has had. */
    record Start(MultiLayerNetwork net, int fits) {}

    /**
     * The warm start of the network oracles (MLP, CNN): a fresh network after nothing or the zero
     * function, a private copy of the previous network when it is of the oracle's own class, and
     * a refusal for any other function.
     */
    static Start start(ScoreFunction previous, Class<? extends NetworkScore> kind, String oracle,
                       Supplier<MultiLayerNetwork> fresh) {
        if (previous == null || previous instanceof ZeroScore) return new Start(fresh.get(), 0);
        if (kind.isInstance(previous)) {
            NetworkScore ns = (NetworkScore) previous;
            return new Start(ns.networkCopy(), ns.fits());
        }
        throw new IllegalArgumentException(oracle + ": cannot continue from a " + previous.kind() + " function");
    }

    /**
     * {@code epochs} passes of mini-batch training on the biased loss, rows reshuffled every pass
     * from {@code shuffleSeed} (the MLP and CNN oracles derive it from their seed and fit count, so
     * a continued or resumed run shuffles exactly as an uninterrupted one). A row gather reorders the
     * rows (ND4J's {@code pullRows} on the CPU, {@link org.structlr.memory.RowGather}): {@code getRows}
     * took seconds for 160k rows here.
     */
    static void trainMinibatches(MultiLayerNetwork net, BiasedLogisticProblem p, long shuffleSeed, int epochs, int batchSize) {
        trainMinibatchSteps(net, p, shuffleSeed, epochs, batchSize, 0, Long.MAX_VALUE);
    }

    /** Mini-batch steps per fit: epochs * ceil(n / batchSize). */
    static long stepsPerFit(long n, int epochs, int batchSize) {
        return epochs * ((n + batchSize - 1) / batchSize);
    }

    /**
     * One partition's share of an averaged fit ({@link AveragedNetworkOracle#fitLocal}): the
     * mini-batch is scaled by the partition's share of the rows, and partition 0 shuffles as the
     * single-machine fit does, so averaging over one partition is that fit exactly.
     */
    static NetworkState fitLocal(NetworkState from, BiasedLogisticProblem rows, int part, double share,
                                 AveragedNetworkOracle.Round round, long seed, int epochs, int batchSize) {
        MultiLayerNetwork net = from.network();
        int batch = Math.max(1, (int) Math.round(batchSize * share));
        long steps = stepsPerFit(rows.numRows(), epochs, batch);
        trainMinibatchSteps(net, rows, seed * 1_000_003L + from.fits() + part * 0x9E3779B97F4A7C15L, epochs, batch,
                round.from(steps), round.to(steps));
        return NetworkState.of(net, from.fits());
    }

    /**
     * Only the steps {@code fromStep <= s < toStep} of {@link #trainMinibatches} (numbered over all
     * its epochs; the shuffles of every epoch are still drawn, so step s is the same batch either
     * way): a fit done in rounds, with the Spark learner's parameter averaging between them.
     */
    static void trainMinibatchSteps(MultiLayerNetwork net, BiasedLogisticProblem p, long shuffleSeed, int epochs, int batchSize,
                                    long fromStep, long toStep) {
        org.nd4j.linalg.api.buffer.DataType dt = net.params().dataType();
        INDArray x = p.features().castTo(dt);
        INDArray labels = BiasedSoftmaxLoss.labels(p).castTo(dt);
        int n = p.numRows();
        long perEpoch = stepsPerFit(n, 1, batchSize);
        java.util.Random rng = new java.util.Random(shuffleSeed);
        int[] perm = new int[n];
        for (int i = 0; i < n; i++) perm[i] = i;
        for (int epoch = 0; epoch < epochs; epoch++) {
            for (int i = n - 1; i > 0; i--) {
                int j = rng.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            long first = epoch * perEpoch;
            if (first + perEpoch <= fromStep || first >= toStep) continue;
            org.structlr.memory.RowGather shuffled = org.structlr.memory.RowGather.of(perm);   // on CUDA: one index array for both
            INDArray xs = shuffled.from(x);
            INDArray ls = shuffled.from(labels);
            for (int start = 0; start < n; start += batchSize) {
                long step = first + start / batchSize;
                if (step < fromStep || step >= toStep) continue;
                int end = Math.min(n, start + batchSize);
                net.fit(xs.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(start, end), org.nd4j.linalg.indexing.NDArrayIndex.all()),
                        ls.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(start, end), org.nd4j.linalg.indexing.NDArrayIndex.all()));
                org.structlr.memory.NativeMemory.release();   // at most every 30 s (see NativeMemory)
            }
        }
    }
}
