package org.structlr.oracle.fcn;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.linear.LinearOracle;
import org.structlr.oracle.linear.ZeroOracle;

import org.structlr.model.Potentials;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import org.deeplearning4j.gradientcheck.GradientCheckUtil;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.NoOp;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.graph.GridBatch;
import org.structlr.learn.AlternatingLearner;
import org.structlr.learn.IterationRecord;
import org.structlr.model.ExampleBatch;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;

class FcnOracleTest {

    /** An oracle of the built-in architecture, one image per mini-batch. */
    static FcnOracle oracle(boolean pairwise, int width, int[] dilations, int epochs, double learningRate, long seed) {
        return new FcnOracle(FcnSettings.builder(pairwise).width(width).dilations(dilations).epochs(epochs).learningRate(learningRate)
                .seed(seed).batch(1).build());
    }

    /** A ragged batch of three images of different sizes. */
    static final GridBatch RAGGED = new GridBatch(new int[]{4, 6, 5}, new int[]{5, 3, 5});

    static INDArray pixels(GridBatch layout, int d, long seed, DataType dt) {
        Random r = new Random(seed);
        double[] v = new double[layout.numVariables() * d];
        for (int i = 0; i < v.length; i++) v[i] = r.nextDouble();
        return Nd4j.create(v, new long[]{layout.numVariables(), d}, 'c').castTo(dt);
    }

    /** Random labels and bias over the given rows; features: the pixels (unary; a subset's own rows) or a dummy edge column. */
    static BiasedLogisticProblem problem(INDArray pixels, ImageRows im, int classes, long seed) {
        Random r = new Random(seed);
        int n = im.rows().length;
        int[] y = new int[n];
        double[] b = new double[n * classes];
        for (int i = 0; i < n; i++) y[i] = r.nextInt(classes);
        for (int i = 0; i < b.length; i++) b[i] = r.nextGaussian();
        INDArray feats = im.perEdge() ? Nd4j.ones(pixels.dataType(), n, 1) : n == pixels.size(0) ? pixels : Nd4j.pullRows(pixels, 1, im.rows());
        return new BiasedLogisticProblem(feats, y, Nd4j.create(b, new long[]{n, classes}, 'c').castTo(pixels.dataType()), classes)
                .withImages(im);
    }

    static int[] allEdges(GridBatch layout) {
        int[] e = new int[layout.numEdges()];
        for (int i = 0; i < e.length; i++) e[i] = i;
        return e;
    }

    /** The horizontal edges of every image, in layout order (one edge type of a grid). */
    static int[] horizontalEdges(GridBatch layout) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        for (int k = 0; k < layout.count(); k++) {
            int h = layout.height(k), w = layout.width(k), off = layout.edgeOffset(k);
            for (int i = 0; i < h * (w - 1); i++) out.add(off + i);
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The per-group loss and its gradient against an independent double loop and central differences. */
    @Test
    void lossAndGradientMatchFiniteDifferences() {
        int n = 5, groups = 2, c = 3;
        Random r = new Random(3);
        double[] pre = new double[n * groups * c], lab = new double[n * 2 * groups * c];
        for (int i = 0; i < pre.length; i++) pre[i] = 2 * r.nextGaussian();
        for (int i = 0; i < n; i++) {
            for (int s = 0; s < groups; s++) {
                if (i == 1 && s == 1) continue;                         // an absent row: all-zero one-hot
                lab[i * 2 * groups * c + s * c + r.nextInt(c)] = 1;
                for (int k = 0; k < c; k++) lab[i * 2 * groups * c + groups * c + s * c + k] = r.nextGaussian();
            }
        }
        INDArray p = Nd4j.create(pre, new long[]{n, groups * c}, 'c'), l = Nd4j.create(lab, new long[]{n, 2 * groups * c}, 'c');
        FcnLoss loss = new FcnLoss(groups);
        // independent: sum over present groups of lse(z) - z_y, z = pre + b
        double want = 0;
        for (int i = 0; i < n; i++) {
            for (int s = 0; s < groups; s++) {
                int y = -1;
                double[] z = new double[c];
                for (int k = 0; k < c; k++) {
                    if (lab[i * 2 * groups * c + s * c + k] == 1) y = k;
                    z[k] = pre[i * groups * c + s * c + k] + lab[i * 2 * groups * c + groups * c + s * c + k];
                }
                if (y < 0) continue;
                double m = Math.max(z[0], Math.max(z[1], z[2]));
                want += m + Math.log(Math.exp(z[0] - m) + Math.exp(z[1] - m) + Math.exp(z[2] - m)) - z[y];
            }
        }
        assertEquals(want, loss.computeScore(l, p, Activation.IDENTITY.getActivationFunction(), null, false), 1e-10);
        INDArray g = loss.computeGradient(l, p, Activation.IDENTITY.getActivationFunction(), null);
        double h = 1e-6;
        for (int j = 0; j < pre.length; j++) {
            INDArray up = p.dup(), down = p.dup();
            up.putScalar(j / (groups * c), j % (groups * c), pre[j] + h);
            down.putScalar(j / (groups * c), j % (groups * c), pre[j] - h);
            double fd = (loss.computeScore(l, up, Activation.IDENTITY.getActivationFunction(), null, false)
                    - loss.computeScore(l, down, Activation.IDENTITY.getActivationFunction(), null, false)) / (2 * h);
            assertEquals(fd, g.getDouble(j / (groups * c), j % (groups * c)), 1e-7, "gradient entry " + j);
        }
        // the absent group has zero gradient
        for (int k = 0; k < c; k++) assertEquals(0.0, g.getDouble(1, c + k), 0.0);
    }

    /** DL4J's gradient check of the whole network (convolutions + CnnLossLayer + FcnLoss), double precision. */
    @Test
    void networkGradientCheckInDoublePrecision() {
        DataType before = Nd4j.dataType(), beforeFp = Nd4j.defaultFloatingPointType();
        Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);   // GradientCheckUtil insists
        try {
            GridBatch one = GridBatch.uniform(1, 4, 5);
            INDArray px = pixels(one, 3, 11, DataType.DOUBLE);
            for (boolean pairwise : new boolean[]{false, true}) {
                FcnOracle o = oracle(pairwise, 3, new int[]{1, 2}, 1, 1e-3, 5);
                int classes = pairwise ? 4 : 2;
                ComputationGraph net = o.newNetwork(3, classes, DataType.DOUBLE, new NoOp());
                ImageRows im = pairwise ? ImageRows.edges(px, one, allEdges(one)) : ImageRows.pixels(px, one);
                BiasedLogisticProblem p = problem(px, im, classes, 17);
                INDArray[] labels = ImageTensors.labels(p, im, pairwise ? 2 : 1, DataType.DOUBLE)[0];
                INDArray x = ImageTensors.image(px, one, 0, DataType.DOUBLE);
                boolean ok = GradientCheckUtil.checkGradients(new GradientCheckUtil.GraphConfig().net(net)
                        .inputs(new INDArray[]{x, labels[1]}).labels(new INDArray[]{labels[0]})
                        .epsilon(1e-6).maxRelError(1e-5).minAbsoluteError(1e-9));
                assertTrue(ok, "gradient check, pairwise = " + pairwise);
            }
        } finally {
            Nd4j.setDefaultDataTypes(before, beforeFp);
        }
    }

    /**
     * DL4J's training loss (per image: the sum over its pixels and groups, DL4J dividing by the one
     * example of the mini-batch) summed over the images equals the problem's loss of the function's
     * scores: the labels and the bias sit at the pixels and edges the scores are read from.
     */
    @Test
    void networkLossIsTheProblemLoss() {
        INDArray px = pixels(RAGGED, 4, 21, DataType.DOUBLE);
        for (boolean pairwise : new boolean[]{false, true}) {
            int classes = pairwise ? 4 : 2;
            List<ImageRows> cases = pairwise
                    ? List.of(ImageRows.edges(px, RAGGED, allEdges(RAGGED)), ImageRows.edges(px, RAGGED, horizontalEdges(RAGGED)))
                    : List.of(ImageRows.pixels(px, RAGGED));
            for (ImageRows im : cases) {
                BiasedLogisticProblem p = problem(px, im, classes, 23);
                FullyConvolutionalScore f = (FullyConvolutionalScore) oracle(pairwise, 4, new int[]{1, 2}, 1, 1e-3, 9)
                        .fit(p, null);
                ComputationGraph net = f.networkCopy();
                INDArray[][] labels = ImageTensors.labels(p, im, f.groups(), DataType.DOUBLE);
                double dl4j = 0;
                for (int k = 0; k < RAGGED.count(); k++) {
                    double imageLoss = net.score(new MultiDataSet(new INDArray[]{ImageTensors.image(px, RAGGED, k, DataType.DOUBLE), labels[k][1]},
                            new INDArray[]{labels[k][0]}), false);
                    dl4j += imageLoss;
                }
                assertEquals(p.loss(f), dl4j, 1e-8 * Math.max(1, dl4j), "pairwise = " + pairwise + ", rows " + im.rows().length);
            }
        }
    }

    /**
     * The problem's loss of a whole-image function reads each row's scores at its pixel: the rows in
     * another order (labels, bias and features permuted alike) have the same loss, and the rows in
     * order (read without a gather) too.
     */
    @Test
    void lossReadsEveryRowAtItsPixel() {
        INDArray px = pixels(RAGGED, 3, 25, DataType.DOUBLE);
        BiasedLogisticProblem inOrder = problem(px, ImageRows.pixels(px, RAGGED), 2, 27);
        ScoreFunction f = oracle(false, 4, new int[]{1}, 1, 1e-2, 3).fit(inOrder, null);
        int n = inOrder.numRows();
        int[] perm = new int[n], y = new int[n];
        for (int i = 0; i < n; i++) perm[i] = i;
        Random r = new Random(29);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i = 0; i < n; i++) y[i] = inOrder.labels()[perm[i]];
        BiasedLogisticProblem shuffled = new BiasedLogisticProblem(Nd4j.pullRows(px, 1, perm), y, Nd4j.pullRows(inOrder.bias(), 1, perm), 2)
                .withImages(new ImageRows(px, RAGGED, perm, false));
        double want = inOrder.loss(f);
        assertEquals(want, shuffled.loss(f), 1e-12 * want, "the same rows in another order");
        assertEquals(inOrder.loss(((ImageScoreFunction) f).imageScores(px, RAGGED)), want, 1e-12 * want, "in order: the scores as they are");
    }

    /** Edge scores are read from the right channels: (r, c)->(r, c+1) from group 0 at (r, c), (r, c)->(r+1, c) from group 1. */
    @Test
    void pairScoresComeFromTheDocumentedChannels() {
        GridBatch one = GridBatch.uniform(1, 3, 4);
        INDArray px = pixels(one, 2, 31, DataType.DOUBLE);
        BiasedLogisticProblem p = problem(px, ImageRows.edges(px, one, allEdges(one)), 4, 5);
        FcnPairScore f = (FcnPairScore) oracle(true, 4, new int[]{1}, 1, 1e-3, 1).fit(p, null);
        INDArray out = f.outputImage(ImageTensors.image(px, one, 0, DataType.DOUBLE));   // [1, 8, 3, 4]
        INDArray s = f.imageScores(px, one);
        int e = 0;
        for (int r = 0; r < 3; r++) for (int c = 0; c + 1 < 4; c++, e++) for (int j = 0; j < 4; j++) {
            assertEquals(out.getDouble(0, j, r, c), s.getDouble(e, j), 1e-12, "horizontal edge " + e);
        }
        for (int r = 0; r + 1 < 3; r++) for (int c = 0; c < 4; c++, e++) for (int j = 0; j < 4; j++) {
            assertEquals(out.getDouble(0, 4 + j, r, c), s.getDouble(e, j), 1e-12, "vertical edge " + e);
        }
        assertEquals(one.numEdges(), e);
    }

    /**
     * The pairwise fcn's edge scores are ND4J's pullRows of its group rows at the edge slots (what they
     * were before the slots became a kept gather) bit for bit, on the CPU's and on the device's way; a
     * layout equal to one seen before reuses its gather (on CUDA: its index array on the device).
     */
    @Test
    void pairScoresAreThePullRowsOfTheEdgeSlotsBitForBit() {
        INDArray px = pixels(RAGGED, 2, 37, DataType.FLOAT);
        BiasedLogisticProblem p = problem(px, ImageRows.edges(px, RAGGED, allEdges(RAGGED)), 4, 7);
        FcnPairScore f = (FcnPairScore) oracle(true, 4, new int[]{1}, 1, 1e-3, 2).fit(p, null);
        INDArray rows = f.groupRows(px, RAGGED);
        INDArray before = Nd4j.pullRows(rows, 1, ImageTensors.edgeSlots(RAGGED));
        GridBatch same = new GridBatch(new int[]{4, 6, 5}, new int[]{5, 3, 5});
        assertTrue(ImageTensors.edgeSlotRows(RAGGED) == ImageTensors.edgeSlotRows(same), "one gather per layout");
        assertArrayEquals(before.data().asFloat(), f.imageScores(px, same).dup('c').data().asFloat(), 0);
        for (boolean host : new boolean[]{true, false}) {
            assertArrayEquals(before.data().asFloat(), ImageTensors.edgeSlotRows(RAGGED).from(rows, host).dup('c').data().asFloat(), 0, "host " + host);
        }
    }

    /** A ragged batch with repeated sizes (stacked into one forward pass per size): three 4x5 images among others. */
    static final GridBatch REPEATED = new GridBatch(new int[]{4, 6, 4, 5, 4}, new int[]{5, 3, 5, 5, 5});

    /**
     * A ragged batch scores every pixel and edge exactly as each image alone: images of different
     * sizes ({@link #RAGGED}) and same-size images that share one forward pass ({@link #REPEATED}).
     */
    @Test
    void raggedBatchEqualsOneImageAtATime() {
        for (GridBatch layout : List.of(RAGGED, REPEATED)) {
            INDArray px = pixels(layout, 3, 41, DataType.FLOAT);
            for (boolean pairwise : new boolean[]{false, true}) {
                ImageRows im = pairwise ? ImageRows.edges(px, layout, allEdges(layout)) : ImageRows.pixels(px, layout);
                ImageScoreFunction f = (ImageScoreFunction) oracle(pairwise, 4, new int[]{1, 2}, 1, 1e-3, 3)
                        .fit(problem(px, im, pairwise ? 4 : 2, 43), null);
                INDArray batch = f.imageScores(px, layout);
                assertEquals(pairwise ? layout.numEdges() : layout.numVariables(), batch.size(0));
                for (int k = 0; k < layout.count(); k++) {
                    int h = layout.height(k), w = layout.width(k), v0 = layout.variableOffset(k);
                    GridBatch alone = GridBatch.uniform(1, h, w);
                    INDArray mine = px.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(v0, v0 + h * w),
                            org.nd4j.linalg.indexing.NDArrayIndex.all()).dup();
                    INDArray single = f.imageScores(mine, alone);
                    long from = pairwise ? layout.edgeOffset(k) : v0, n = single.size(0);
                    INDArray part = batch.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(from, from + n),
                            org.nd4j.linalg.indexing.NDArrayIndex.all());
                    assertClose(single, part, layout + " image " + k + ", pairwise = " + pairwise);
                }
            }
        }
    }

    /**
     * Same-size images share a mini-batch and it descends the same objective: the gradient of a
     * stacked batch is the sum of the images' gradients and its DL4J score is their mean, and one SGD
     * step moves the parameters by the learning rate times that mean (the updater divides by the
     * batch size). A size that occurs once gets a batch of its own.
     */
    @Test
    void sameSizeMiniBatchesGiveTheSummedGradient() {
        DataType before = Nd4j.dataType(), beforeFp = Nd4j.defaultFloatingPointType();
        Nd4j.setDefaultDataTypes(DataType.DOUBLE, DataType.DOUBLE);
        try {
            GridBatch layout = new GridBatch(new int[]{4, 5, 4, 4}, new int[]{6, 3, 6, 6});
            List<int[]> batches = FcnEpochs.batches(layout, new int[]{3, 1, 0, 2}, 8);
            assertEquals(2, batches.size());
            assertArrayEquals(new int[]{3, 0, 2}, batches.get(0));
            assertArrayEquals(new int[]{1}, batches.get(1));
            assertEquals(List.of(List.of(3), List.of(1), List.of(0), List.of(2)), FcnEpochs.batches(layout, new int[]{3, 1, 0, 2}, 1)
                    .stream().map(b -> java.util.Arrays.stream(b).boxed().toList()).toList(), "batch 1: the given order");
            assertEquals(2, FcnEpochs.batches(layout, new int[]{0, 1, 2, 3}, 2).get(0).length);
            INDArray px = pixels(layout, 3, 71, DataType.DOUBLE);
            int[] same = batches.get(0);
            double lr = 0.1;
            for (boolean pairwise : new boolean[]{false, true}) {
                int classes = pairwise ? 4 : 2, groups = pairwise ? 2 : 1;
                ImageRows im = pairwise ? ImageRows.edges(px, layout, allEdges(layout)) : ImageRows.pixels(px, layout);
                BiasedLogisticProblem p = problem(px, im, classes, 73);
                INDArray[][] l = ImageTensors.labels(p, im, groups, DataType.DOUBLE);
                INDArray[] x = new INDArray[layout.count()], y = new INDArray[x.length], b = new INDArray[x.length];
                for (int k = 0; k < x.length; k++) {
                    x[k] = ImageTensors.image(px, layout, k, DataType.DOUBLE);
                    y[k] = l[k][0];
                    b[k] = l[k][1];
                }
                ComputationGraph net = oracle(pairwise, 4, new int[]{1, 2}, 1, lr, 5)
                        .newNetwork(3, classes, DataType.DOUBLE, new org.nd4j.linalg.learning.config.Sgd(lr));
                INDArray gSum = null;
                double sSum = 0;
                for (int k : same) {
                    net.setInputs(x[k], b[k]);
                    net.setLabels(y[k]);
                    net.computeGradientAndScore();
                    INDArray g = net.gradient().gradient().dup();
                    gSum = gSum == null ? g : gSum.addi(g);
                    sSum += net.score();
                }
                net.setInputs(FcnEpochs.stack(x, same), FcnEpochs.stack(b, same));
                net.setLabels(FcnEpochs.stack(y, same));
                net.computeGradientAndScore();
                INDArray gBatch = net.gradient().gradient().dup();
                assertEquals(sSum, net.score() * same.length, 1e-10 * Math.abs(sSum), "pairwise = " + pairwise);
                double scale = gSum.amaxNumber().doubleValue();
                assertTrue(scale > 0);
                assertEquals(0.0, gBatch.sub(gSum).amaxNumber().doubleValue(), 1e-10 * scale, "pairwise = " + pairwise);
                INDArray start = net.params().dup();
                net.fit(new INDArray[]{FcnEpochs.stack(x, same), FcnEpochs.stack(b, same)}, new INDArray[]{FcnEpochs.stack(y, same)});
                INDArray want = start.sub(gSum.mul(lr / same.length));
                assertEquals(0.0, net.params().sub(want).amaxNumber().doubleValue(), 1e-10 * Math.max(1, want.amaxNumber().doubleValue()),
                        "one SGD step on the batch, pairwise = " + pairwise);
            }
        } finally {
            Nd4j.setDefaultDataTypes(before, beforeFp);
        }
    }

    /** Batched fits work on ragged layouts and keep the oracle's guarantees: the loss falls, same seed same function. */
    @Test
    void batchedFitsLowerTheLossOnRaggedImages() {
        INDArray px = pixels(REPEATED, 3, 81, DataType.FLOAT);
        BiasedLogisticProblem p = problem(px, ImageRows.pixels(px, REPEATED), 2, 83);
        FcnOracle o = oracle(false, 8, new int[]{1, 2}, 5, 1e-2, 7).with(s -> s.batch(8));
        ScoreFunction f1 = o.fit(p, null), f2 = o.fit(p, f1);
        double l0 = p.loss((ScoreFunction) null), l1 = p.loss(f1), l2 = p.loss(f2);
        assertTrue(l1 < l0 && l2 < l1, "loss should fall with fits: " + l0 + " -> " + l1 + " -> " + l2);
        assertArrayEquals(((ImageScoreFunction) f1).imageScores(px, REPEATED).toFloatMatrix(),
                ((ImageScoreFunction) o.fit(p, null)).imageScores(px, REPEATED).toFloatMatrix(), "same seed, same function");
    }

    /** A plugged-in architecture: one 5 x 5 convolution, then the scores; the oracle trains it as it trains the built-in one. */
    record FiveByFive(int width) implements FcnArchitecture {
        @Override
        public ComputationGraph newNetwork(int numFeatures, int numClasses, int groups, Optimisation o) {
            var b = new org.deeplearning4j.nn.conf.NeuralNetConfiguration.Builder().seed(o.seed()).dataType(o.dataType()).updater(o.updater())
                    .convolutionMode(org.deeplearning4j.nn.conf.ConvolutionMode.Same).graphBuilder().addInputs(FcnGraph.IMAGE, FcnGraph.BIAS);
            b.addLayer(FcnGraph.conv(0), new org.deeplearning4j.nn.conf.layers.ConvolutionLayer.Builder(5, 5).nIn(numFeatures).nOut(width)
                    .activation(Activation.TANH).build(), FcnGraph.IMAGE);
            b.addLayer(FcnGraph.SCORES, new org.deeplearning4j.nn.conf.layers.ConvolutionLayer.Builder(1, 1).nIn(width)
                    .nOut((long) groups * numClasses).activation(Activation.IDENTITY).build(), FcnGraph.conv(0));
            FcnGraph.addHead(b, groups);
            ComputationGraph net = new ComputationGraph(b.build());
            net.init();
            return net;
        }

        @Override
        public String describe() {
            return "conv 5x5x" + width + " tanh, conv 1x1";
        }
    }

    @Test
    void aPluggedInArchitectureIsTrainedAndDescribed() {
        INDArray px = pixels(RAGGED, 3, 55, DataType.FLOAT);
        for (boolean pairwise : new boolean[]{false, true}) {
            ImageRows im = pairwise ? ImageRows.edges(px, RAGGED, allEdges(RAGGED)) : ImageRows.pixels(px, RAGGED);
            BiasedLogisticProblem p = problem(px, im, pairwise ? 4 : 2, 57);
            FcnOracle o = new FcnOracle(FcnSettings.builder(pairwise).architecture(new FiveByFive(6)).epochs(5).learningRate(1e-2)
                    .seed(7).batch(1).build());
            assertTrue(o.describe().contains("conv 5x5x6 tanh, conv 1x1"), o.describe());
            assertEquals(o.settings(), o.with(s -> s.epochs(5)).settings(), "a plugged-in architecture survives toBuilder");
            ScoreFunction f1 = o.fit(p, null), f2 = o.fit(p, f1);
            double l0 = p.loss((ScoreFunction) null), l1 = p.loss(f1), l2 = p.loss(f2);
            assertTrue(l1 < l0 && l2 <= l1, "pairwise = " + pairwise + ": loss should fall with fits: " + l0 + " -> " + l1 + " -> " + l2);
            ComputationGraph net = ((FullyConvolutionalScore) f2).networkCopy();
            assertArrayEquals(new int[]{5, 5}, FullyConvolutionalScore.convolution(net, FcnGraph.conv(0)).getKernelSize());
            assertTrue(((FullyConvolutionalScore) f2).describe().contains("conv5x5x6 conv1x1x" + (pairwise ? 8 : 2)),
                    ((FullyConvolutionalScore) f2).describe());
        }
    }

    @Test
    void fitsLowerTheLossWarmStartAndAreDeterministic() {
        INDArray px = pixels(RAGGED, 3, 51, DataType.FLOAT);
        // labels that depend on the pixels: y = 1 where feature 0 exceeds the image's row neighbour
        ImageRows im = ImageRows.pixels(px, RAGGED);
        BiasedLogisticProblem p = problem(px, im, 2, 53);
        FcnOracle o = oracle(false, 8, new int[]{1, 2}, 5, 1e-2, 7);
        ScoreFunction f1 = o.fit(p, null), f2 = o.fit(p, f1);
        double l0 = p.loss((ScoreFunction) null), l1 = p.loss(f1), l2 = p.loss(f2);
        assertTrue(l1 < l0 && l2 < l1, "loss should fall with fits: " + l0 + " -> " + l1 + " -> " + l2);
        assertEquals(2, ((FullyConvolutionalScore) f2).fits());
        assertArrayEquals(((ImageScoreFunction) f1).imageScores(px, RAGGED).toFloatMatrix(),
                ((ImageScoreFunction) o.fit(p, null)).imageScores(px, RAGGED).toFloatMatrix(), "same seed, same function");
        assertThrows(IllegalArgumentException.class, () -> o.fit(new BiasedLogisticProblem(px, p.labels(), p.bias(), 2), null),
                "no images: refused");
        assertThrows(IllegalArgumentException.class, () -> ((ScoreFunction) f1).scores(px), "rows alone: refused");
        assertThrows(IllegalArgumentException.class, () -> FcnOracle.pairwise().fit(p, null), "a pixel problem for a pairwise fcn");
    }

    /**
     * The descent check: from near a minimum, with a step far too long (Adam 3.0), a fit raises the loss when every fit is
     * kept; with the check no fit raises it, the kept network carries a halved learning rate, and with a
     * sane step (an accepted fit) the check changes nothing, bit for bit.
     */
    @Test
    void descentCheckKeepsOnlyFitsThatLowerTheLoss() {
        INDArray px = pixels(RAGGED, 3, 91, DataType.FLOAT);
        BiasedLogisticProblem p = problem(px, ImageRows.pixels(px, RAGGED), 3, 93);
        // a start near a minimum (30 epochs), from which a long step climbs; a warm-started network
        // keeps its own learning rate (it travels with Adam's state), so the long step is set on it
        FcnOracle oracle = oracle(false, 8, new int[]{1, 2}, 3, 1e-2, 7);
        ScoreFunction start = oracle.with(s -> s.epochs(30)).fit(p, null);
        ((FullyConvolutionalScore) start).net.setLearningRate(3.0);
        FcnOracle wild = oracle;
        double before = p.loss(start);
        double unchecked = p.loss(wild.with(s -> s.descentCheck(false)).fit(p, start));
        assertTrue(unchecked > before, "the test needs a step that raises the loss: " + before + " -> " + unchecked);

        ScoreFunction f = start;
        double last = before;
        for (int i = 0; i < 3; i++) {
            f = wild.fit(p, f);
            double now = p.loss(f);
            assertTrue(now <= last, "fit " + i + " raised the loss: " + last + " -> " + now);
            last = now;
        }
        double rate = FcnGraph.learningRate(((FullyConvolutionalScore) f).net);
        assertTrue(rate <= 3.0 / 2, "the rejected step should be halved, learning rate now " + rate);

        ((FullyConvolutionalScore) start).net.setLearningRate(1e-2);
        ScoreFunction a = oracle.fit(p, start), b = oracle.with(s -> s.descentCheck(false)).fit(p, start);
        assertTrue(p.loss(a) < before, "a sane step lowers the loss");
        assertArrayEquals(((ImageScoreFunction) b).imageScores(px, RAGGED).toFloatMatrix(),
                ((ImageScoreFunction) a).imageScores(px, RAGGED).toFloatMatrix(), "an accepted fit is the unchecked fit");
    }

    /**
     * Tuning switches: {@code recovery} (2 by default) regrows a halved step after a fit accepted at
     * its first try (never above the configured rate; 1 keeps it), and weight decay changes the fit.
     */
    @Test
    void recoveryRegrowsTheStepAndWeightDecayChangesTheFit() {
        INDArray px = pixels(RAGGED, 3, 95, DataType.FLOAT);
        BiasedLogisticProblem p = problem(px, ImageRows.pixels(px, RAGGED), 2, 97);
        FcnOracle oracle = oracle(false, 8, new int[]{1, 2}, 2, 1e-2, 7);
        ScoreFunction start = oracle.fit(p, null);
        ((FullyConvolutionalScore) start).net.setLearningRate(1e-2 / 8);
        ScoreFunction kept = oracle.with(s -> s.recovery(1)).fit(p, start), regrown = oracle.fit(p, start);
        assertTrue(p.loss(kept) <= p.loss(start) && p.loss(regrown) <= p.loss(start), "both fits accepted");
        assertEquals(1e-2 / 8, FcnGraph.learningRate(((FullyConvolutionalScore) kept).net), 1e-12, "no recovery: the step stays");
        assertEquals(1e-2 / 4, FcnGraph.learningRate(((FullyConvolutionalScore) regrown).net), 1e-12, "recovery 2 (the default): doubled");
        ((FullyConvolutionalScore) start).net.setLearningRate(0.8e-2);
        assertEquals(1e-2, FcnGraph.learningRate(((FullyConvolutionalScore) oracle.with(s -> s.recovery(2)).fit(p, start)).net), 1e-12,
                "never above the configured rate");

        ScoreFunction plain = oracle.fit(p, null), decayed = oracle.with(s -> s.weightDecay(0.1)).fit(p, null);
        assertFalse(java.util.Arrays.equals(((ImageScoreFunction) plain).imageScores(px, RAGGED).reshape(-1).toFloatVector(),
                ((ImageScoreFunction) decayed).imageScores(px, RAGGED).reshape(-1).toFloatVector()), "weight decay changes the fit");
    }

    /** The class's options reach the oracle: a spec's fit is the fit of the oracle built with the same settings, bit for bit. */
    @Test
    void classOptionsReachTheOracle() {
        INDArray px = pixels(RAGGED, 3, 65, DataType.FLOAT);
        BiasedLogisticProblem p = problem(px, ImageRows.pixels(px, RAGGED), 2, 67);
        java.util.Map<String, String> given = java.util.Map.of("width", "4", "dilations", "1,2", "epochs", "1", "lr", "0.001",
                "batch", "2", "descent-check", "false", "weight-decay", "0.01");
        Oracle fromSpec = FunctionSpec.unary("fcn", given).create(3, 3, 1);
        FcnOracle direct = oracle(false, 4, new int[]{1, 2}, 1, 1e-3, 3).with(s -> s.batch(2)).with(s -> s.descentCheck(false))
                .with(s -> s.weightDecay(0.01));
        assertEquals(direct.describe(), fromSpec.describe());
        assertTrue(FunctionSpec.unary("fcn", java.util.Map.of("recovery", "3")).create(3, 3, 1).describe().contains("step regrown x3.0"),
                "recovery (with the descent check) reaches the oracle");
        assertArrayEquals(((ImageScoreFunction) direct.fit(p, null)).imageScores(px, RAGGED).toFloatMatrix(),
                ((ImageScoreFunction) fromSpec.fit(p, null)).imageScores(px, RAGGED).toFloatMatrix());
        assertEquals(new FcnOracle(FcnSettings.builder(true).seed(9).build()).describe(), FunctionSpec.pairwise("fcn").create(3, 9, 1).describe(), "defaults");
    }

    @Test
    void saveLoadRoundTrip(@TempDir Path tmp) throws Exception {
        INDArray px = pixels(RAGGED, 3, 61, DataType.FLOAT);
        for (boolean pairwise : new boolean[]{false, true}) {
            ImageRows im = pairwise ? ImageRows.edges(px, RAGGED, allEdges(RAGGED)) : ImageRows.pixels(px, RAGGED);
            BiasedLogisticProblem p = problem(px, im, pairwise ? 4 : 2, 63);
            FcnOracle o = oracle(pairwise, 4, new int[]{1, 2}, 1, 1e-3, 3);
            ImageScoreFunction f = (ImageScoreFunction) o.fit(p, null);
            Path dir = tmp.resolve("f" + pairwise);
            f.save(dir);
            ImageScoreFunction g = (ImageScoreFunction) ScoreFunctions.load(dir);
            assertEquals(f.kind(), g.kind());
            assertArrayEquals(f.imageScores(px, RAGGED).toFloatMatrix(), g.imageScores(px, RAGGED).toFloatMatrix());
            // the updater state travels: continuing from the loaded function equals continuing from the original
            assertEquals(((FullyConvolutionalScore) f).networkCopy().getConfiguration().getIterationCount(),
                    ((FullyConvolutionalScore) g).networkCopy().getConfiguration().getIterationCount());
            assertArrayEquals(((ImageScoreFunction) o.fit(p, f)).imageScores(px, RAGGED).toFloatMatrix(),
                    ((ImageScoreFunction) o.fit(p, g)).imageScores(px, RAGGED).toFloatMatrix());
        }
    }

    /**
     * Learning: on small blurred-blob denoising images (labels are smooth blobs; each pixel's own
     * feature is only weakly informative, its neighbourhood much more), the FCN unary reaches a lower
     * training objective than the linear unary, both with no pairwise term.
     */
    @Test
    void fcnUnaryBeatsLinearUnaryOnNeighbourhoodLabels() {
        Dataset data = new DenoisingGenerator(2.0, false).generate(8, 0, 12, 16, 77);
        ExampleBatch batch = new ExampleBatch(data.train(), 2, List.of("pairwise"));
        LearnSettings s = new LearnSettings(6, 0.1, 5, 0, 1);
        // a small FCN (two layers, receptive field 7 x 7) so that the test takes seconds
        Oracle fcnOracle = oracle(false, 16, new int[]{1, 2}, 2, 2e-2, 1);
        double fcn = last(new AlternatingLearner(s, fcnOracle, List.of(new ZeroOracle())).train(batch, null, (r, n) -> {}).curve());
        double linear = last(new AlternatingLearner(s, new LinearOracle(), List.of(new ZeroOracle())).train(batch, null, (r, n) -> {}).curve());
        assertTrue(fcn < 0.9 * linear, "fcn objective " + fcn + " should be well below linear " + linear);
    }

    /**
     * The batch path the learner and the predictor use: potentials of a ragged batch of images (two
     * sizes, a pairwise type per direction) equal those of each image in a batch of its own, so the
     * per-type edge selection and the image layout agree.
     */
    @Test
    void raggedExampleBatchPotentialsEqualPerImageBatches() {
        DenoisingGenerator gen = new DenoisingGenerator(2.0, true);
        List<org.structlr.data.Example> images = List.of(gen.generate(1, 0, 5, 7, 1).train().get(0),
                gen.generate(1, 0, 6, 4, 2).train().get(0), gen.generate(1, 0, 5, 7, 3).train().get(0));
        List<String> types = List.of("horizontal", "vertical");
        ExampleBatch batch = new ExampleBatch(images, 2, types);
        assertEquals(new GridBatch(new int[]{5, 6, 5}, new int[]{7, 4, 7}), batch.layout());
        INDArray px = batch.unaryFeatures();
        ScoreFunction unary = oracle(false, 4, new int[]{1, 2}, 1, 1e-2, 9).fit(problem(px, batch.imageRows(-1), 2, 5), null);
        List<ScoreFunction> pair = new java.util.ArrayList<>();
        for (int t = 0; t < 2; t++) pair.add(oracle(true, 4, new int[]{1, 2}, 1, 1e-2, t).fit(problem(px, batch.imageRows(t), 4, 6 + t), null));
        INDArray u = Potentials.unary(batch, unary, 0.1), p = Potentials.pairwise(batch, pair, 0.1);
        for (int k = 0; k < images.size(); k++) {
            ExampleBatch alone = new ExampleBatch(List.of(images.get(k)), 2, types);
            INDArray ua = Potentials.unary(alone, unary, 0.1), pa = Potentials.pairwise(alone, pair, 0.1);
            int v0 = batch.variableOffset(k), e0 = batch.edgeOffset(k);
            // images 0 and 2 share a size, so one forward pass (last-bit differences of the GEMM allowed)
            assertClose(ua, u.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(v0, v0 + ua.size(0)),
                    org.nd4j.linalg.indexing.NDArrayIndex.all()), "unary, image " + k);
            assertClose(pa, p.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(e0, e0 + pa.size(0)),
                    org.nd4j.linalg.indexing.NDArrayIndex.all()), "pairwise, image " + k);
        }
        // a vertical edge's potential comes from the vertical type's function
        INDArray vScores = ((ImageScoreFunction) pair.get(1)).imageScores(px, batch.layout());
        int firstVertical = batch.edgesOfType(1)[0];
        assertEquals(0.1 * vScores.getDouble(firstVertical, 3), p.getDouble(firstVertical, 3), 1e-6);
    }

    /** The CLI's path: Training refuses fcn on examples that are not images. */
    @Test
    void trainingRefusesFcnWithoutImages() {
        Dataset data = new DenoisingGenerator(2.0, false).generate(2, 0, 4, 4, 1);
        java.util.List<org.structlr.data.Example> flat = new java.util.ArrayList<>();
        for (org.structlr.data.Example e : data.train()) {
            flat.add(org.structlr.data.Example.builder(e.unary(), e.unaryDim(), e.edges(), e.pairwise(), e.pairDim())
                    .labels(e.labels()).numLabels(2).build());
        }
        Dataset noShapes = Dataset.of(flat, List.of(), List.of());
        assertThrows(org.structlr.data.BadInputException.class,
                () -> Training.checkApplicable(noShapes, "fcn", "zero"));
        Training.checkApplicable(data, "fcn", "fcn");
    }

    /** Equal to float rounding: relative 1e-5 (a stacked forward pass may sum in another order). */
    static void assertClose(INDArray want, INDArray got, String what) {
        assertArrayEquals(want.shape(), got.shape(), what);
        float[][] a = want.toFloatMatrix(), b = got.toFloatMatrix();
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < a[i].length; j++) {
                assertEquals(a[i][j], b[i][j], 1e-5f * Math.max(1f, Math.abs(a[i][j])), what + ", row " + i + ", column " + j);
            }
        }
    }

    private static double last(List<IterationRecord> curve) {
        return curve.get(curve.size() - 1).objective();
    }
}
