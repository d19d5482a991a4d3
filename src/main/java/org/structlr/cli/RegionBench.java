package org.structlr.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.RegionBatch;
import org.structlr.learn.RegionLearner;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.linear.LinearOracle;

/**
 * Region factors against pairs on the denoising data (bench/regions/run.sh drives it):
 * <pre>
 *   RegionBench OUT TRAIN TEST SIZE ITERATIONS [MODELS]
 * </pre>
 * learns linear functions with {@link RegionLearner} (eps 0.1, 25 sweeps after each fit, the
 * paper's schedule, the loop engine, one thread) for each model of MODELS (default
 * {@code pairs,patches,both}) on the same TRAIN + TEST images of SIZE x SIZE (seed 1; blur sigma
 * 10 * SIZE / 100, the paper's shapes at a smaller size):
 * <ul>
 *   <li>pairs: unary factors and the 4-connected pairs (horizontal and vertical types), each pair's
 *       features its edge's: the paper's model;</li>
 *   <li>patches: unary factors and every 2x2 patch as one factor over 4 variables (16 joint labels),
 *       its features the features of its 4 edges side by side;</li>
 *   <li>both: unary factors, the pairs and the patches.</li>
 * </ul>
 * Writes OUT/MODEL-curve.tsv (iteration, objective, train and test error, seconds) and OUT/table.md.
 */
public final class RegionBench {
    private RegionBench() {}

    public static void main(String[] args) throws IOException {
        Locale.setDefault(Locale.ROOT);
        if (args.length < 5) {
            System.err.println("usage: RegionBench OUT TRAIN TEST SIZE ITERATIONS [pairs,patches,both]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        int nTrain = Integer.parseInt(args[1]), nTest = Integer.parseInt(args[2]), size = Integer.parseInt(args[3]), iterations = Integer.parseInt(args[4]);
        List<String> models = List.of((args.length > 5 ? args[5] : "pairs,patches,both").split(","));
        Files.createDirectories(out);
        // the blur scaled with the image (the paper's sigma 10 at 100 x 100), so that smaller images keep its shapes
        Dataset data = new DenoisingGenerator(DenoisingGenerator.DEFAULT_SIGMA * size / DenoisingGenerator.DEFAULT_SIZE, true).generate(nTrain, nTest, size, size, 1L);
        StringBuilder table = new StringBuilder("| model | factors per image | parameters | test error | train error | objective R | learning seconds (fits + passing) | seconds per iteration |\n|---|---|---|---|---|---|---|---|\n");
        for (String model : models) {
            boolean pairs = model.equals("pairs") || model.equals("both"), patches = model.equals("patches") || model.equals("both");
            if (!pairs && !patches) throw new IllegalArgumentException("unknown model " + model + "; pairs, patches or both");
            RegionBatch train = batch(data.train(), pairs, patches), test = batch(data.test(), pairs, patches);
            List<Oracle> oracles = new ArrayList<>();
            for (int t = 0; t < train.numRegionTypes(); t++) oracles.add(new LinearOracle());
            RegionLearner.Settings s = new RegionLearner.Settings(0.1, iterations, 25, 25, Math.max(1, iterations / 10));
            StringBuilder curve = new StringBuilder("iteration\tobjective\ttrain_error\ttest_error\tseconds\tlearning_seconds\n");
            RegionLearner.Result r = new RegionLearner(s, new LinearOracle(), oracles).train(train, test, (rec, n) -> {
                curve.append(String.format("%d\t%.6f\t%.4f\t%.4f\t%.1f\t%.1f%n", rec.iteration(), rec.objective(), rec.trainError(), rec.testError(), rec.seconds(), rec.learningSeconds()));
                System.out.printf("%s: iteration %d/%d, R %.5f, train error %.4f, test error %.4f, %.1f s%n", model, rec.iteration(), n, rec.objective(), rec.trainError(), rec.testError(), rec.seconds());
            });
            Files.writeString(out.resolve(model + "-curve.tsv"), curve.toString());
            IterationRecord last = r.curve().get(r.curve().size() - 1);
            long params = (long) r.unary().numFeatures() * r.unary().numClasses();
            for (var f : r.regions()) params += (long) f.numFeatures() * f.numClasses();
            int perImage = data.train().get(0).numVariables() + train.graph().numRegions() / nTrain;
            table.append(String.format("| %s | %d | %d | %.4f | %.4f | %.5f | %.1f (%.1f + %.1f) | %.2f |%n", model, perImage, params, last.testError(), last.trainError(),
                    last.objective(), r.fitSeconds() + r.passingSeconds(), r.fitSeconds(), r.passingSeconds(), (r.fitSeconds() + r.passingSeconds()) / iterations));
        }
        Files.writeString(out.resolve("table.md"), table.toString());
        System.out.print(table);
    }

    /** The examples (images of one size) as one region batch: pairs of the 4-connected grid and/or its 2x2 patches. */
    static RegionBatch batch(List<Example> examples, boolean pairs, boolean patches) {
        List<RegionBatch> parts = new ArrayList<>();
        for (Example e : examples) parts.add(image(e, pairs, patches));
        return RegionBatch.join(parts);
    }

    /**
     * One grid image: region types "horizontal", "vertical" (the edges, with their features) and/or
     * "patch" (2x2: variables top-left, top-right, bottom-left, bottom-right; features of its top,
     * bottom, left and right edges).
     */
    static RegionBatch image(Example e, boolean pairs, boolean patches) {
        int h = e.shape().orElseThrow()[0], w = e.shape().orElseThrow()[1], d = e.pairDim();
        int[] edgeAt = new int[h * w * 2];   // [pixel, direction 0 right / 1 down] -> edge
        java.util.Arrays.fill(edgeAt, -1);
        int[] types = e.edgeTypes().orElse(new int[e.numEdges()]);
        for (int k = 0; k < e.numEdges(); k++) {
            int i = e.edgeFrom(k), j = e.edgeTo(k);
            edgeAt[2 * i + (j == i + 1 ? 0 : 1)] = k;
        }
        List<int[]> scopes = new ArrayList<>();
        List<Integer> type = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<float[]> rows = new ArrayList<>();
        int[] typeRows = new int[3];
        if (pairs) {
            names.add("horizontal");
            names.add("vertical");
            for (int k = 0; k < e.numEdges(); k++) {
                scopes.add(new int[] {e.edgeFrom(k), e.edgeTo(k)});
                type.add(types[k]);
                typeRows[types[k]]++;
            }
        }
        int patchType = names.size();
        if (patches) {
            names.add("patch");
            for (int r = 0; r + 1 < h; r++) {
                for (int c = 0; c + 1 < w; c++) {
                    int tl = r * w + c;
                    scopes.add(new int[] {tl, tl + 1, tl + w, tl + w + 1});
                    type.add(patchType);
                    typeRows[patchType]++;
                }
            }
        }
        int[] numLabels = new int[e.numVariables()];
        java.util.Arrays.fill(numLabels, 2);
        int[] rt = type.stream().mapToInt(Integer::intValue).toArray();
        FactorGraph g = FactorGraph.builder(numLabels).regions(scopes.toArray(new int[0][]), rt).regionTypeNames(names).build();
        // features per type in region order
        List<INDArray> features = new ArrayList<>();
        for (int t = 0; t < names.size(); t++) {
            boolean patch = patches && t == patchType;
            int width = patch ? 4 * d : d;
            float[] x = new float[typeRows[t] * width];
            int row = 0;
            for (int reg = 0; reg < rt.length; reg++) {
                if (rt[reg] != t) continue;
                int[] sc = g.regionScope(reg);
                int[] edges = patch ? new int[] {edgeAt[2 * sc[0]], edgeAt[2 * sc[2]], edgeAt[2 * sc[0] + 1], edgeAt[2 * sc[1] + 1]}
                        : new int[] {edgeAt[2 * sc[0] + (sc[1] == sc[0] + 1 ? 0 : 1)]};
                for (int q = 0; q < edges.length; q++) {
                    for (int f = 0; f < d; f++) x[row * width + q * d + f] = e.pairwise(edges[q], f);
                }
                row++;
            }
            features.add(Nd4j.create(x, new long[] {typeRows[t], width}, 'c'));
        }
        return new RegionBatch(g, 2, e.unaryMatrix().castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT), features, e.labels());
    }
}
