package org.structlr.oracle.nn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.TestProblems;
import org.structlr.oracle.ZeroScore;
import org.structlr.oracle.linear.ConstantOracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.deeplearning4j.gradientcheck.GradientCheckUtil;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;
import com.fasterxml.jackson.databind.JsonNode;
import org.deeplearning4j.util.ModelSerializer;
import org.structlr.model.CrfModel;
import org.structlr.model.ModelExport;

class CnnOracleTest {

    /**
     * Synthetic patch problems: n random k x k RGB patches (channel-major rows of width 3 k^2, values
     * in [0, 1]); label 1 with probability sigmoid(scale * (centre - mean) + b1 - b0), where centre
     * and mean are the grey value (mean of R, G, B) of the centre pixel and of the whole patch, and the
     * bias b ~ N(0, biasScale^2) is part of the problem. Not separable, not constant.
     */
    static BiasedLogisticProblem patches(int n, int k, double scale, double biasScale, long seed, DataType dt) {
        Random r = new Random(seed);
        int kk = k * k, d = 3 * kk, centre = (k / 2) * k + k / 2;
        float[] x = new float[n * d];
        float[] b = new float[n * 2];
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            double mean = 0, c = 0;
            for (int j = 0; j < d; j++) {
                float v = r.nextFloat();
                x[i * d + j] = v;
                mean += v;
                if (j % kk == centre) c += v;
            }
            mean /= d;
            c /= 3;
            b[2 * i] = (float) (biasScale * r.nextGaussian());
            b[2 * i + 1] = (float) (biasScale * r.nextGaussian());
            double z = scale * (c - mean) + b[2 * i + 1] - b[2 * i];
            y[i] = r.nextDouble() < 1 / (1 + Math.exp(-z)) ? 1 : 0;
        }
        INDArray xa = Nd4j.create(x, new long[]{n, d}, 'c').castTo(dt);
        INDArray ba = Nd4j.create(b, new long[]{n, 2}, 'c').castTo(dt);
        return new BiasedLogisticProblem(xa, y, ba, 2);
    }

    @Test
    void gradientCheckInDoublePrecision() {
        DataType before = Nd4j.dataType(), beforeFp = Nd4j.defaultFloatingPointType();
        Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);   // GradientCheckUtil insists
        try {
            // k = 3: one convolution (1x1 output), dense, output; k = 7: conv, pool, conv, dense, output
            for (int k : new int[]{3, 7}) {
                BiasedLogisticProblem p = patches(6, k, 8, 1.0, 40 + k, DataType.DOUBLE);
                CnnOracle o = new CnnOracle(1.0, 2, 2, 4, 1, 10, 0.0, 7);
                MultiLayerNetwork net = o.newNetwork(p.numFeatures(), 2, DataType.DOUBLE);
                net.getLayerWiseConfigurations().getConfs().forEach(c -> {
                    if (c.getLayer() instanceof org.deeplearning4j.nn.conf.layers.BaseLayer bl) bl.setIUpdater(new NoOp());
                });
                net = new MultiLayerNetwork(net.getLayerWiseConfigurations().clone());
                net.init();
                long convs = net.getLayerWiseConfigurations().getConfs().stream().filter(c -> c.getLayer() instanceof ConvolutionLayer).count();
                long pools = net.getLayerWiseConfigurations().getConfs().stream().filter(c -> c.getLayer() instanceof SubsamplingLayer).count();
                assertEquals(k == 3 ? 1 : 2, convs);
                assertEquals(k == 3 ? 0 : 1, pools);
                boolean ok = GradientCheckUtil.checkGradients(new GradientCheckUtil.MLNConfig().net(net)
                        .input(p.features()).labels(BiasedSoftmaxLoss.labels(p)).epsilon(1e-6).maxRelError(1e-5).minAbsoluteError(1e-9));
                assertTrue(ok, "gradient check, k = " + k);
            }
        } finally {
            Nd4j.setDefaultDataTypes(before, beforeFp);
        }
    }

    @Test
    void learnsThePatchContrastAndBeatsAConstant(@TempDir Path tmp) throws Exception {
        BiasedLogisticProblem p = patches(5000, 9, 25, 1.0, 41, DataType.FLOAT);
        BiasedLogisticProblem test = patches(3000, 9, 25, 1.0, 42, DataType.FLOAT);
        CnnOracle oracle = CnnOracle.unary().withSeed(3).withEpochs(3);   // 15 steps per fit
        double l0 = p.meanLoss(null);
        ScoreFunction f = null;
        double[] losses = new double[5];
        for (int t = 0; t < losses.length; t++) {
            f = oracle.fit(p, f);
            losses[t] = p.meanLoss(f);
        }
        double constant = p.meanLoss(new ConstantOracle().fit(p, null));
        double testLoss = test.meanLoss(f), testConstant = test.meanLoss(new ConstantOracle().fit(test, null));
        System.out.printf("cnn loss per row: start %.4f, fits %s; constant %.4f; held out %.4f vs constant %.4f; %s%n",
                l0, java.util.Arrays.toString(losses), constant, testLoss, testConstant, f.describe());
        for (int t = 1; t < losses.length; t++) assertTrue(losses[t] < losses[t - 1] + 1e-3, "fit " + t + ": " + java.util.Arrays.toString(losses));
        assertTrue(losses[losses.length - 1] < losses[0] - 0.02, java.util.Arrays.toString(losses));
        assertTrue(losses[losses.length - 1] < constant - 0.05, losses[losses.length - 1] + " vs constant " + constant);
        assertTrue(testLoss < testConstant - 0.05, testLoss + " vs constant " + testConstant);
        assertEquals(5, ((CnnScore) f).fits());
        assertEquals(9, ((CnnScore) f).patchSide());
        assertEquals(243, f.numFeatures());

        // save and load: identical scores, same kind and shape, continuing gives the same function
        f.save(tmp.resolve("f"));
        ScoreFunction loaded = ScoreFunctions.load(tmp.resolve("f"));
        assertTrue(loaded instanceof CnnScore);
        assertEquals(0.0, TestProblems.maxAbsDiff(f.scores(test.features()), loaded.scores(test.features())));
        ScoreFunction a = oracle.fit(test, f), b = oracle.fit(test, loaded);
        assertTrue(TestProblems.maxAbsDiff(a.scores(test.features()), b.scores(test.features())) < 1e-6);
    }

    @Test
    void deterministicGivenTheSeed() {
        BiasedLogisticProblem p = patches(1500, 5, 25, 1.0, 43, DataType.FLOAT);
        ScoreFunction a = new CnnOracle(0.1, 4, 4, 8, 1, 100, 0.9, 99).fit(p, null);
        ScoreFunction b = new CnnOracle(0.1, 4, 4, 8, 1, 100, 0.9, 99).fit(p, null);
        ScoreFunction c = new CnnOracle(0.1, 4, 4, 8, 1, 100, 0.9, 98).fit(p, null);
        assertEquals(0.0, TestProblems.maxAbsDiff(a.scores(p.features()), b.scores(p.features())));
        assertEquals(0.0, TestProblems.maxAbsDiff(new CnnOracle(0.1, 4, 4, 8, 1, 100, 0.9, 99).fit(p, a).scores(p.features()),
                new CnnOracle(0.1, 4, 4, 8, 1, 100, 0.9, 99).fit(p, b).scores(p.features())));
        assertTrue(TestProblems.maxAbsDiff(a.scores(p.features()), c.scores(p.features())) > 1e-4);
    }

    @Test
    void refusesWidthsThatAreNotPatches() {
        assertEquals(9, CnnOracle.patchSide(243));
        assertEquals(1, CnnOracle.patchSide(3));
        for (int width : new int[]{42, 2, 12, 48, 0}) {   // 12 = 3 * 2^2: an even side is not a centred patch
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CnnOracle.patchSide(width));
            assertTrue(e.getMessage().contains("width " + width), e.getMessage());
        }
        BiasedLogisticProblem p = TestProblems.random(50, 42, 2, 1.0, 5, DataType.FLOAT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CnnOracle.unary().fit(p, null));
        assertTrue(e.getMessage().contains("42"), e.getMessage());
        // a function of another class is refused as a warm start
        BiasedLogisticProblem q = patches(50, 3, 25, 1.0, 6, DataType.FLOAT);
        assertThrows(IllegalArgumentException.class, () -> CnnOracle.unary().fit(q, new ConstantOracle().fit(q, null)));
    }

    @Test
    void unaryOnlyInTheRegistry() {
        FunctionClass cnn = FunctionClasses.get("cnn");
        assertTrue(cnn.create(new FunctionClass.Context(true, 75, 1, 1)) instanceof CnnOracle);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cnn.create(new FunctionClass.Context(false, 75, 1, 1)));
        assertEquals("cnn is a unary function class for patch features", e.getMessage());
        // the class's options reach the oracle (its description names every setting); none given: the defaults
        assertEquals(new CnnOracle(0.5, 2, 3, 4, 5, 6, 0.0, 1).describe(), org.structlr.oracle.FunctionSpec.unary("cnn", java.util.Map.of(
                "step", "0.5", "filters1", "2", "filters2", "3", "dense", "4", "epochs", "5", "batch", "6", "momentum", "0"))
                .create(75, 1, 1).describe());
        assertEquals(CnnOracle.unary().describe(), org.structlr.oracle.FunctionSpec.unary("cnn").create(75, 1, 1).describe());
    }

    @Test
    void exportsAsAPlainDl4jNetwork(@TempDir Path tmp) throws Exception {
        BiasedLogisticProblem p = patches(2000, 5, 25, 1.0, 44, DataType.FLOAT);
        CnnScore f = (CnnScore) CnnOracle.unary().fit(p, null);
        CrfModel m = new CrfModel(2, 0.1, 75, 3, List.of("horizontal", "vertical"), f,
                List.of(new ZeroScore(4), new ZeroScore(4)), Map.of(), Map.of("grid", true));
        Path out = tmp.resolve("export");
        ModelExport.export(m, out);    // checks the exported network against f.scores itself
        JsonNode unary = ModelExport.readManifest(out).path("factorTypes").get(0);
        assertEquals("cnn", unary.path("kind").asText());
        assertEquals("dl4j-multilayernetwork", unary.path("format").asText());
        assertEquals(75, unary.path("features").asInt());
        assertTrue(!Files.readString(out.resolve(MANIFEST_NAME)).isEmpty());
        // plain DL4J, no structlr classes needed: the saved JSON names none
        MultiLayerNetwork net = ModelSerializer.restoreMultiLayerNetwork(out.resolve(unary.path("file").asText()).toFile(), false);
        assertTrue(!net.getLayerWiseConfigurations().toJson().contains("org.structlr"));
        INDArray x = p.features().get(org.nd4j.linalg.indexing.NDArrayIndex.interval(0, 200), org.nd4j.linalg.indexing.NDArrayIndex.all());
        assertTrue(TestProblems.maxAbsDiff(f.scores(x), net.output(x, false)) < 1e-6);
    }

    private static final String MANIFEST_NAME = ModelExport.MANIFEST;
}
