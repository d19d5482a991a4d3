package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.TestProblems;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.deeplearning4j.gradientcheck.GradientCheckUtil;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.impl.ActivationIdentity;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;

class BiasedSoftmaxLossTest {

    private static MultiLayerNetwork net(Activation outAct, int d, int c) {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder()
                .seed(7).dataType(DataType.DOUBLE).updater(new NoOp()).weightInit(WeightInit.XAVIER)
                .list()
                .layer(new DenseLayer.Builder().nIn(d).nOut(5).activation(Activation.TANH).build())
                .layer(new OutputLayer.Builder(new BiasedSoftmaxLoss()).nIn(5).nOut(c).activation(outAct).build())
                .build();
        MultiLayerNetwork n = new MultiLayerNetwork(conf);
        n.init();
        return n;
    }

    @Test
    void gradientCheckPassesInDoublePrecision() {
        BiasedLogisticProblem p = TestProblems.random(12, 4, 3, 2.0, 1, DataType.DOUBLE);
        DataType before = Nd4j.dataType();
        DataType beforeFp = Nd4j.defaultFloatingPointType();
        Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);   // GradientCheckUtil insists
        try {
            for (Activation act : new Activation[]{Activation.IDENTITY, Activation.TANH}) {
                MultiLayerNetwork n = net(act, 4, 3);
                boolean ok = GradientCheckUtil.checkGradients(new GradientCheckUtil.MLNConfig().net(n)
                        .input(p.features()).labels(BiasedSoftmaxLoss.labels(p)).epsilon(1e-6).maxRelError(1e-5).minAbsoluteError(1e-9));
                assertTrue(ok, "gradient check with output activation " + act);
            }
        } finally {
            Nd4j.setDefaultDataTypes(before, beforeFp);
        }
    }

    @Test
    void scoreIsTheBiasedLogisticLoss() {
        BiasedLogisticProblem p = TestProblems.random(50, 3, 4, 3.0, 2, DataType.DOUBLE);
        INDArray s = Nd4j.rand(DataType.DOUBLE, 50, 4).subi(0.5).muli(4);
        BiasedSoftmaxLoss loss = new BiasedSoftmaxLoss();
        double sum = loss.computeScore(BiasedSoftmaxLoss.labels(p), s, new ActivationIdentity(), null, false);
        assertEquals(p.loss(s), sum, 1e-9 * Math.abs(sum));
        assertEquals(p.loss(s) / 50, loss.computeScore(BiasedSoftmaxLoss.labels(p), s, new ActivationIdentity(), null, true), 1e-11);
        INDArray perRow = loss.computeScoreArray(BiasedSoftmaxLoss.labels(p), s, new ActivationIdentity(), null);
        assertEquals(sum, perRow.sumNumber().doubleValue(), 1e-9);
        // the bias really enters: a zero bias gives another value
        INDArray zeroBias = BiasedSoftmaxLoss.labels(p.targetMatrix(), Nd4j.zeros(DataType.DOUBLE, 50, 4));
        assertTrue(Math.abs(loss.computeScore(zeroBias, s, new ActivationIdentity(), null, false) - sum) > 1e-3);
        // gradient = softmax(s + b) - y
        INDArray g = loss.computeGradient(BiasedSoftmaxLoss.labels(p), s, new ActivationIdentity(), null);
        assertTrue(TestProblems.maxAbsDiff(g, Nets.scoreGradient(s, p).muli(50)) < 1e-12);
    }

    @Test
    void refusesLabelsOfTheWrongWidth() {
        INDArray s = Nd4j.zeros(DataType.DOUBLE, 5, 3);
        assertThrows(IllegalArgumentException.class, () ->
                new BiasedSoftmaxLoss().computeScore(Nd4j.zeros(DataType.DOUBLE, 5, 3), s, new ActivationIdentity(), null, true));
    }

    @Test
    void allInstancesAreEqual() {
        assertEquals(new BiasedSoftmaxLoss(), new BiasedSoftmaxLoss());
        assertEquals(new BiasedSoftmaxLoss().hashCode(), new BiasedSoftmaxLoss().hashCode());
    }
}
