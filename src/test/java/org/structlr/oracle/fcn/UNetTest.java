package org.structlr.oracle.fcn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.structlr.oracle.fcn.FcnOracleTest.allEdges;
import static org.structlr.oracle.fcn.FcnOracleTest.assertClose;
import static org.structlr.oracle.fcn.FcnOracleTest.pixels;
import static org.structlr.oracle.fcn.FcnOracleTest.problem;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.gradientcheck.GradientCheckUtil;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.nd4j.linalg.learning.config.NoOp;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.graph.GridBatch;
import org.structlr.learn.AlternatingLearner;
import org.structlr.learn.LearnSettings;
import org.structlr.model.ExampleBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ClassOptions;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.linear.LinearOracle;
import org.structlr.oracle.linear.ZeroOracle;

/** The U-Net architecture: any image size through padding, gradients, learning, options, save/load and export. */
class UNetTest {

    static FcnOracle unet(boolean pairwise, int width, int depth, int epochs, long seed) {
        return new FcnOracle(FcnSettings.builder(pairwise).architecture(new UNet(width, depth)).epochs(epochs).learningRate(1e-2)
                .seed(seed).batch(2).build());
    }

    /** Odd sizes (none a multiple of 4): one score row per pixel (per group), each image's scores those of the image alone. */
    @Test
    void scoresEveryPixelOfOddSizedImages() {
        GridBatch ragged = new GridBatch(new int[]{5, 7, 5, 3}, new int[]{3, 9, 3, 1});
        INDArray px = pixels(ragged, 3, 41, DataType.FLOAT);
        for (boolean pairwise : new boolean[]{false, true}) {
            ImageRows im = pairwise ? ImageRows.edges(px, ragged, allEdges(ragged)) : ImageRows.pixels(px, ragged);
            int classes = pairwise ? 4 : 3;
            FullyConvolutionalScore f = (FullyConvolutionalScore) unet(pairwise, 4, 2, 1, 3).fit(problem(px, im, classes, 43), null);
            assertArrayEquals(new int[]{4, 4}, f.sizeMultiple());
            INDArray rows = f.groupRows(px, ragged);
            int groups = pairwise ? 2 : 1;
            assertArrayEquals(new long[]{(long) ragged.numVariables() * groups, classes}, rows.shape());
            for (int k = 0; k < ragged.count(); k++) {
                INDArray x = ImageTensors.image(px, ragged, k, DataType.FLOAT);
                INDArray out = f.outputImage(x);
                assertArrayEquals(new long[]{1, (long) groups * classes, ragged.height(k), ragged.width(k)}, out.shape(), "image " + k);
                long from = (long) ragged.variableOffset(k) * groups, to = from + (long) ragged.height(k) * ragged.width(k) * groups;
                assertClose(ImageTensors.toRows(out, groups), rows.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()),
                        "pairwise " + pairwise + ", image " + k);
            }
        }
    }

    /** Padding puts the image top-left among zeros and crop takes it back. */
    @Test
    void padAndCropAreInverse() {
        INDArray a = Nd4j.rand(DataType.FLOAT, 2, 3, 5, 7);
        INDArray p = ImageTensors.pad(a, new int[]{4, 2});
        assertArrayEquals(new long[]{2, 3, 8, 8}, p.shape());
        assertEquals(a, ImageTensors.crop(p, 5, 7));
        assertEquals(a.sumNumber().doubleValue(), p.sumNumber().doubleValue(), 1e-4, "only zeros added");
        assertTrue(ImageTensors.pad(a, new int[]{1, 1}) == a, "sizes already multiples: no copy");
    }

    /**
     * DL4J's gradient check of the whole U-Net (convolutions, batch normalisation in training mode,
     * pool, up-sampling, concatenation, FcnLoss) in double precision, on a padded odd-size image pair.
     */
    @Test
    void networkGradientCheckInDoublePrecision() {
        DataType before = Nd4j.dataType(), beforeFp = Nd4j.defaultFloatingPointType();
        Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
        try {
            GridBatch two = GridBatch.uniform(2, 5, 3);
            INDArray px = pixels(two, 3, 13, DataType.DOUBLE);
            // unary with 2 classes and pairwise with 4 differ only in the scores layer's width: one check, of the pairwise
            for (boolean pairwise : new boolean[]{true}) {
                FcnOracle o = new FcnOracle(FcnSettings.builder(pairwise).architecture(new UNet(2, 1, Activation.TANH)).seed(5).build());
                int classes = pairwise ? 4 : 2, groups = pairwise ? 2 : 1;
                ComputationGraph net = o.newNetwork(3, classes, DataType.DOUBLE, new NoOp());
                ImageRows im = pairwise ? ImageRows.edges(px, two, allEdges(two)) : ImageRows.pixels(px, two);
                INDArray[][] l = ImageTensors.labels(problem(px, im, classes, 19), im, groups, DataType.DOUBLE);
                int[] m = FcnGraph.sizeMultiple(net);
                INDArray x = Nd4j.concat(0, ImageTensors.pad(ImageTensors.image(px, two, 0, DataType.DOUBLE), m),
                        ImageTensors.pad(ImageTensors.image(px, two, 1, DataType.DOUBLE), m));
                INDArray y = Nd4j.concat(0, ImageTensors.pad(l[0][0], m), ImageTensors.pad(l[1][0], m));
                INDArray b = Nd4j.concat(0, ImageTensors.pad(l[0][1], m), ImageTensors.pad(l[1][1], m));
                assertArrayEquals(new long[]{2, 3, 6, 4}, x.shape());
                // batch normalisation's running mean and variance are state, not parameters of the loss
                java.util.Set<String> state = new java.util.HashSet<>();
                for (String name : net.paramTable().keySet()) if (name.matches(".*-bn_(mean|var|log10stdev)")) state.add(name);
                assertEquals(2 * (2 + 2 * 1 + 1), state.size(), "two state arrays per normalisation: " + net.paramTable().keySet());
                boolean ok = GradientCheckUtil.checkGradients(new GradientCheckUtil.GraphConfig().net(net)
                        .inputs(new INDArray[]{x, b}).labels(new INDArray[]{y}).excludeParams(state)
                        .subset(true).maxPerParam(3)
                        .epsilon(1e-6).maxRelError(1e-4).minAbsoluteError(1e-8));
                assertTrue(ok, "gradient check, pairwise = " + pairwise);
            }
        } finally {
            Nd4j.setDefaultDataTypes(before, beforeFp);
        }
    }

    /**
     * A problem it must fit: blurred-blob denoising labels depend on a neighbourhood; with no pairwise
     * term the U-Net unary reaches a training objective well below the linear unary's.
     */
    @Test
    void learnsNeighbourhoodLabelsBetterThanLinear() {
        Dataset data = new DenoisingGenerator(2.0, false).generate(8, 0, 12, 16, 77);
        ExampleBatch batch = new ExampleBatch(data.train(), 2, List.of("pairwise"));
        LearnSettings s = new LearnSettings(6, 0.1, 5, 0, 1);
        double fcn = last(new AlternatingLearner(s, unet(false, 4, 2, 2, 1), List.of(new ZeroOracle())).train(batch, null, (r, n) -> {}));
        double linear = last(new AlternatingLearner(s, new LinearOracle(), List.of(new ZeroOracle())).train(batch, null, (r, n) -> {}));
        assertTrue(fcn < 0.9 * linear, "unet objective " + fcn + " should be well below linear " + linear);
    }

    private static double last(AlternatingLearner.Result r) {
        return r.curve().get(r.curve().size() - 1).objective();
    }

    /**
     * The class options arch, width and depth reach the oracle (its fit is the directly built
     * oracle's, bit for bit), survive the JSON a model records them in, and the trained function
     * survives save and load, its Adam and batch-normalisation state included.
     */
    @Test
    void optionsAndSaveLoadRoundTrip(@TempDir Path tmp) throws Exception {
        GridBatch layout = new GridBatch(new int[]{6, 5}, new int[]{5, 7});
        INDArray px = pixels(layout, 3, 71, DataType.FLOAT);
        BiasedLogisticProblem p = problem(px, ImageRows.pixels(px, layout), 2, 73);
        Map<String, String> given = Map.of("arch", "unet", "width", "4", "depth", "1", "epochs", "2", "lr", "0.01", "batch", "2");
        Oracle fromSpec = FunctionSpec.unary("fcn", given).create(3, 5, 1);
        FcnOracle direct = unet(false, 4, 1, 2, 5);
        assertEquals(direct.describe(), fromSpec.describe());
        assertTrue(direct.describe().contains("unet width 4, depth 1"), direct.describe());
        ImageScoreFunction f = (ImageScoreFunction) fromSpec.fit(p, null);
        assertArrayEquals(((ImageScoreFunction) direct.fit(p, null)).imageScores(px, layout).toFloatMatrix(),
                f.imageScores(px, layout).toFloatMatrix(), "the options' oracle is the direct one");

        FcnClass c = new FcnClass();
        ClassOptions o = ClassOptions.of(c, true, given);
        ObjectMapper json = new ObjectMapper();
        ClassOptions back = ClassOptions.fromJson(c, true, json.readTree(json.writeValueAsString(o.values())));
        assertEquals("unet", back.get(FcnClass.ARCH));
        assertEquals(1, back.get(FcnClass.DEPTH));
        assertEquals(4, back.get(FcnClass.WIDTH));
        assertEquals("dilated", ClassOptions.defaults(c, true).get(FcnClass.ARCH), "the default stays the dilated network");
        assertThrows(IllegalArgumentException.class, () -> ClassOptions.of(c, true, Map.of("arch", "resnet")));
        assertThrows(IllegalArgumentException.class, () -> FunctionSpec.unary("fcn", Map.of("arch", "unet", "depth", "9")).create(3, 5, 1));

        Path dir = tmp.resolve("unet");
        f.save(dir);
        ImageScoreFunction g = (ImageScoreFunction) ScoreFunctions.load(dir);
        assertArrayEquals(f.imageScores(px, layout).toFloatMatrix(), g.imageScores(px, layout).toFloatMatrix());
        assertTrue(f.describe().contains("BatchNormalizationx4 ActivationLayer SubsamplingLayer") && f.describe().contains("Upsampling2D"),
                f.describe());
        assertArrayEquals(((ImageScoreFunction) fromSpec.fit(p, f)).imageScores(px, layout).toFloatMatrix(),
                ((ImageScoreFunction) fromSpec.fit(p, g)).imageScores(px, layout).toFloatMatrix(), "continues as the original");
    }

    /** The export's plain DL4J network (no structlr class) gives the function's scores on a padded-size image. */
    @Test
    void plainNetworkGivesTheScores() {
        GridBatch layout = GridBatch.uniform(3, 6, 5);
        INDArray px = pixels(layout, 3, 81, DataType.FLOAT);
        for (boolean pairwise : new boolean[]{false, true}) {
            ImageRows im = pairwise ? ImageRows.edges(px, layout, allEdges(layout)) : ImageRows.pixels(px, layout);
            FullyConvolutionalScore f = (FullyConvolutionalScore) unet(pairwise, 4, 2, 2, 9).fit(problem(px, im, pairwise ? 4 : 2, 83), null);
            ComputationGraph plain = f.plainNetwork();
            plain.getConfiguration().getVertices().values().forEach(v -> assertTrue(v.getClass().getName().startsWith("org.deeplearning4j."), v.toString()));
            INDArray x = ImageTensors.pad(ImageTensors.image(px, layout, 1, DataType.FLOAT), f.sizeMultiple());
            assertArrayEquals(new long[]{1, 3, 8, 8}, x.shape());
            assertClose(f.outputImage(x).reshape(-1, 1), plain.output(x)[0].reshape(-1, 1), "pairwise " + pairwise);
        }
    }
}
