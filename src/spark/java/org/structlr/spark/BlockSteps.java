package org.structlr.spark;

import org.structlr.model.Potentials;
import java.util.List;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.inference.MessagePassing;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.ScoreFunction;

/**
 * What the executors do to a {@link Block}: the message-passing halves of an iteration of
 * {@code AlternatingLearner} (same operations in the same order, on the block's examples instead of
 * all of them; examples are independent graphs, so the messages are those of the single-machine run),
 * and the per-block sums the driver adds up.
 */
final class BlockSteps {
    private BlockSteps() {}

    /** Per-iteration sums of one block: smoothed dual, F(x, y) at the truth, wrong labels and variables (train, test). */
    static final int DUAL = 0, F = 1, TRAIN_WRONG = 2, TRAIN_VARS = 3, TEST_WRONG = 4, TEST_VARS = 5, STATS = 6;

    private static MessagePassing engine(ExampleBatch batch, double eps, float[] state) {
        MessagePassing mp = batch.newEngine(eps);
        if (state != null) mp.setState(state);
        return mp;
    }

    /** Before the first iteration (or after a resume): engines at their start, the biases of the first unary fit. */
    static Block start(Block b, ScoreFunction unary, List<ScoreFunction> pair, double eps) {
        ExampleBatch batch = b.batch();
        int L = b.numLabels;
        if (b.test) {
            if (b.evalMessages == null) return b.with(null, null, null, null);
            try (MessagePassing ev = batch.newEngine(eps)) {
                ev.setPotentials(Potentials.unary(batch, unary, eps), Potentials.pairwise(batch, pair, eps));
                ev.setMessages(messages(b.evalMessages, batch, L));
                return b.with(null, ev.state(), null, null);
            }
        }
        INDArray delta = Potentials.hammingLoss(batch);
        INDArray thetaU = Potentials.unary(batch, unary, eps).addi(delta);
        INDArray thetaP = Potentials.pairwise(batch, pair, eps);
        float[] evalState = null;
        try (MessagePassing mp = batch.newEngine(eps)) {
            mp.setPotentials(thetaU, thetaP);
            if (b.messages != null) mp.setMessages(messages(b.messages, batch, L));
            if (b.evalMessages != null) {
                try (MessagePassing ev = batch.newEngine(eps)) {
                    ev.setPotentials(thetaU.sub(delta), thetaP);
                    ev.setMessages(messages(b.evalMessages, batch, L));
                    evalState = ev.state();
                }
            }
            return b.with(mp.state(), evalState, unaryBias(mp, delta, eps), null);
        }
    }

    /** After the unary fit: sweeps with the new unary potentials; the biases of the pairwise fits. */
    static Block afterUnaryFit(Block b, ScoreFunction unary, List<ScoreFunction> pair, double eps, int sweeps) {
        if (b.test) return b;
        ExampleBatch batch = b.batch();
        try (MessagePassing mp = engine(batch, eps, b.state)) {
            mp.setPotentials(Potentials.unary(batch, unary, eps).addi(Potentials.hammingLoss(batch)), Potentials.pairwise(batch, pair, eps));
            mp.iterate(sweeps);
            // bias (lambda_{a->i}(y_i) + lambda_{a->j}(y_j)) / eps
            float[] pairBias = pairBias(mp.messages().castTo(DataType.FLOAT), b.numLabels).divi(eps).reshape(-1).toFloatVector();
            return b.with(mp.state(), b.evalState, null, pairBias);
        }
    }

    /**
     * After the pairwise fits: sweeps with the new pairwise potentials, the iteration's sums
     * ({@link #STATS}: dual and F before the evaluation, errors from the evaluation sweeps), the
     * messages re-seated as the single-machine learner does at the end of every iteration, and the
     * biases of the next unary fit. Test blocks run only their evaluation.
     */
    static Block afterPairFit(Block b, ScoreFunction unary, List<ScoreFunction> pair, double eps, int sweeps, int evalSweeps, boolean keepMessages) {
        ExampleBatch batch = b.batch();
        INDArray thetaP = Potentials.pairwise(batch, pair, eps);
        double[] s = new double[STATS];
        if (b.test) {
            if (evalSweeps == 0) return b.with(null, b.evalState, null, null, s, null, keepMessages ? messagesOf(b, eps, true) : null);
            try (MessagePassing ev = engine(batch, eps, b.evalState)) {
                ev.setPotentials(Potentials.unary(batch, unary, eps), thetaP);
                ev.iterate(evalSweeps);
                if (batch.hasLabels()) {
                    s[TEST_WRONG] = wrong(batch, ev.decode());
                    s[TEST_VARS] = batch.graph().numVariables();
                }
                float[] m = reseat(ev);
                return b.with(null, ev.state(), null, null, s, null, keepMessages ? m : null);
            }
        }
        INDArray delta = Potentials.hammingLoss(batch);
        INDArray thetaU = Potentials.unary(batch, unary, eps).addi(delta);
        try (MessagePassing mp = engine(batch, eps, b.state)) {
            mp.setPotentials(thetaU, thetaP);
            mp.iterate(sweeps);
            // R = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k) ]; Delta is 0 at the truth.
            s[DUAL] = mp.dual();
            s[F] = thetaU.mul(oneHot(batch.labels(), b.numLabels)).sumNumber().doubleValue()
                    + thetaP.mul(oneHot(batch.jointLabels(), b.numLabels * b.numLabels)).sumNumber().doubleValue();
            s[TRAIN_VARS] = batch.graph().numVariables();
            float[] evalState = null, evalMessages = null;
            if (evalSweeps > 0) {
                try (MessagePassing ev = engine(batch, eps, b.evalState)) {
                    ev.setPotentials(thetaU.sub(delta), thetaP);
                    ev.iterate(evalSweeps);
                    s[TRAIN_WRONG] = wrong(batch, ev.decode());
                    evalMessages = reseat(ev);
                    evalState = ev.state();
                }
            }
            float[] m = reseat(mp);
            return b.with(mp.state(), evalState, unaryBias(mp, delta, eps), null, s,
                    keepMessages ? m : null, keepMessages ? evalMessages : null);
        }
    }

    /** The block's messages in natural units, [E, 2, L] flattened, from a state (evaluation without sweeps keeps its state). */
    static float[] messagesOf(Block b, double eps, boolean eval) {
        float[] st = eval ? b.evalState : b.state;
        if (st == null) return null;
        try (MessagePassing mp = engine(b.batch(), eps, st)) {
            return mp.messages().castTo(DataType.FLOAT).reshape(-1).toFloatVector();
        }
    }

    private static int wrong(ExampleBatch batch, int[] decoded) {
        int[] y = batch.labels();
        int w = 0;
        for (int v = 0; v < y.length; v++) if (decoded[v] != y[v]) w++;
        return w;
    }

    /** The engine's messages set back into it (AlternatingLearner's end-of-iteration state), as floats. */
    private static float[] reseat(MessagePassing mp) {
        INDArray m = mp.messages();
        mp.setMessages(m);
        return m.castTo(DataType.FLOAT).reshape(-1).toFloatVector();
    }

    private static float[] unaryBias(MessagePassing mp, INDArray delta, double eps) {
        return delta.sub(mp.incomingMessageSums().castTo(DataType.FLOAT)).divi(eps).reshape(-1).toFloatVector();
    }

    private static INDArray messages(float[] flat, ExampleBatch batch, int L) {
        return Nd4j.createFromArray(flat).reshape(batch.graph().numEdges(), 2, L);
    }

    /** [E, L*L]: lambda_{a->i}(y_i) + lambda_{a->j}(y_j) from messages [E, 2, L] (as AlternatingLearner.pairBias). */
    static INDArray pairBias(INDArray messages, int L) {
        long E = messages.size(0);
        INDArray toI = messages.get(NDArrayIndex.all(), NDArrayIndex.point(0), NDArrayIndex.all()).reshape(E, L, 1);
        INDArray toJ = messages.get(NDArrayIndex.all(), NDArrayIndex.point(1), NDArrayIndex.all()).reshape(E, 1, L);
        return toI.broadcast(E, L, L).add(toJ.broadcast(E, L, L)).reshape(E, (long) L * L);
    }

    static INDArray oneHot(int[] labels, int classes) {
        float[] data = new float[labels.length * classes];
        for (int k = 0; k < labels.length; k++) data[k * classes + labels[k]] = 1f;
        return Nd4j.create(data, new long[] {labels.length, classes}, DataType.FLOAT);
    }
}
