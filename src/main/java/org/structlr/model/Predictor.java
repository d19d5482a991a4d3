package org.structlr.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;
import org.structlr.inference.InferenceResult;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.engines.EngineUnavailableException;
import org.structlr.inference.engines.Engines;

/** Prediction with a trained model: potentials without loss augmentation, message passing, argmax. */
public final class Predictor {
    private Predictor() {}

    /** Labels {@code [V]}, marginals {@code [V, L]} of the whole batch, and how inference ended. */
    public record Prediction(int[] labels, INDArray marginals, InferenceResult inference) {}

    /** Refuses examples whose feature widths do not match the model, naming the file. */
    public static void checkCompatible(CrfModel model, Example ex) {
        if (ex.unaryDim() != model.unaryFeatures()) {
            throw new BadInputException("" + ex.name() + ": " + ex.unaryDim() + " unary features but the model expects " + model.unaryFeatures());
        }
        if (ex.numEdges() > 0 && ex.pairDim() != model.pairFeatures()) {
            throw new BadInputException("" + ex.name() + ": " + ex.pairDim() + " pairwise features but the model expects " + model.pairFeatures());
        }
    }

    public static Prediction predict(CrfModel model, ExampleBatch batch, StopRule stop) {
        return predict(model, batch, stop, EngineChoice.AUTO);
    }

    /** As {@link #predict(CrfModel, ExampleBatch, StopRule)} on the engine {@code engine} names (a named one that cannot run the batch: bad input). */
    public static Prediction predict(CrfModel model, ExampleBatch batch, StopRule stop, EngineChoice engine) {
        for (Example ex : batch.examples()) checkCompatible(model, ex);
        MessagePassing engineForBatch;
        try {
            engineForBatch = batch.newEngine(model.eps(), engine);
        } catch (EngineUnavailableException e) {
            throw new BadInputException(e.getMessage());
        }
        try (MessagePassing mp = engineForBatch) {
            INDArray u = Potentials.unary(batch, model.unary(), model.eps()), p = Potentials.pairwise(batch, model.pair(), model.eps());
            if (batch.numRegionTypes() > 0) mp.setPotentials(u, p, Potentials.regions(batch, model.regions(), model.eps()));
            else mp.setPotentials(u, p);
            InferenceResult r = mp.run(stop);
            return new Prediction(mp.decode(), mp.unaryBeliefs(), r);
        }
    }

    /** Stop when the duality gap per variable is below {@code tolPerVariable}, or after {@code max} sweeps. */
    public static StopRule defaultStop(ExampleBatch batch, int max, double tolPerVariable) {
        return new StopRule(max, tolPerVariable * batch.graph().numVariables(), CHECK_EVERY);
    }

    /**
     * Predicts each example as if it were alone, bit for bit, however many ride together: the
     * answers {@code predict} gives for one input, and what {@code serve}'s micro-batches return.
     * <ul>
     *   <li>Potentials: each example's own, computed as for a batch of one (a function's scores of
     *       stacked rows may round differently with the stack's height, e.g. in BLAS blocking, and a
     *       whole-image function scores one image at a time anyway).</li>
     *   <li>Inference: one engine over the disjoint union when the engine is <em>separable</em>
     *       ({@link Engines#separable}: every example's messages are those of the example alone),
     *       else one engine per example.</li>
     *   <li>Stopping: each example by its own duality gap ({@link ExampleGaps}), checked every
     *       {@code checkEvery} sweeps as {@link MessagePassing#run} does with the whole gap; its
     *       labels and marginals are read at the check that stops it, while the others go on.</li>
     * </ul>
     * Examples that stop early keep being swept until the last one stops (the engines sweep whole
     * batches), so a batch costs as many sweeps as its slowest example.
     */
    public static List<Prediction> predictEach(CrfModel model, List<Example> examples, int maxIterations, double tolPerVariable) {
        return predictEach(model, examples, maxIterations, tolPerVariable, EngineChoice.AUTO);
    }

    /**
     * As {@link #predictEach(CrfModel, List, int, double)} on the engine {@code engine} names (a
     * named one that cannot run an example: bad input). Only a separable engine serves several
     * examples at once; the others (ND4J) run one engine per example.
     */
    public static List<Prediction> predictEach(CrfModel model, List<Example> examples, int maxIterations, double tolPerVariable,
                                               EngineChoice engine) {
        if (examples.isEmpty()) return List.of();
        int n = examples.size();
        if (model.regionLayout() != RegionLayout.NONE) {
            // the per-example gaps (ExampleGaps) know no regions: each example alone, stopped by its own whole gap
            List<Prediction> out = new ArrayList<>();
            for (Example ex : examples) {
                ExampleBatch one = model.batch(List.of(ex));
                out.add(predict(model, one, defaultStop(one, maxIterations, tolPerVariable), engine));
            }
            return out;
        }
        List<FactorGraph> graphs = new ArrayList<>();
        List<int[]> shapes = new ArrayList<>();
        INDArray[] unary = new INDArray[n], pair = new INDArray[n];
        for (int k = 0; k < n; k++) {
            Example ex = examples.get(k);
            checkCompatible(model, ex);
            ExampleBatch one = model.batch(List.of(ex));
            unary[k] = Potentials.unary(one, model.unary(), model.eps());
            pair[k] = Potentials.pairwise(one, model.pair(), model.eps());
            graphs.add(one.graph());
            shapes.add(ex.shape().orElse(null));
        }
        Prediction[] out = new Prediction[n];
        if (n > 1) {
            FactorGraph union = FactorGraph.disjointUnion(graphs);
            MessagePassing mp = engineFor(engine, union, shapes, model.eps());
            if (Engines.separable(mp)) {
                try (mp) {
                    runEach(mp, union, graphs, unary, pair, model, maxIterations, tolPerVariable, out, 0);
                }
                return Arrays.asList(out);
            }
            mp.close();
        }
        for (int k = 0; k < n; k++) {
            try (MessagePassing mp = engineFor(engine, graphs.get(k), java.util.Collections.singletonList(shapes.get(k)), model.eps())) {
                runEach(mp, graphs.get(k), graphs.subList(k, k + 1), new INDArray[] {unary[k]}, new INDArray[] {pair[k]}, model,
                        maxIterations, tolPerVariable, out, k);
            }
        }
        return Arrays.asList(out);
    }

    /** The engine {@code choice} names for a graph; a named engine that cannot run it is bad input. */
    private static MessagePassing engineFor(EngineChoice choice, FactorGraph graph, List<int[]> shapes, double eps) {
        try {
            return Engines.forBatch(choice, graph, shapes, eps);
        } catch (EngineUnavailableException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** Message passing on {@code mp} (over the union of {@code parts}), each part stopped by its own gap; results into out[first..]. */
    private static void runEach(MessagePassing mp, FactorGraph union, List<FactorGraph> parts, INDArray[] unary, INDArray[] pair,
                                CrfModel model, int maxIterations, double tolPerVariable, Prediction[] out, int first) {
        int n = parts.size();
        int[] vo = new int[n + 1], eo = new int[n + 1];
        for (int k = 0; k < n; k++) {
            vo[k + 1] = vo[k] + parts.get(k).numVariables();
            eo[k + 1] = eo[k] + parts.get(k).numEdges();
        }
        INDArray u = n == 1 ? unary[0] : Nd4j.concat(0, unary), p = n == 1 ? pair[0] : Nd4j.concat(0, pair);
        mp.setPotentials(u, p);
        int[] from = new int[union.numEdges()], to = new int[union.numEdges()];
        for (int e = 0; e < from.length; e++) {
            from[e] = union.edgeFrom(e);
            to[e] = union.edgeTo(e);
        }
        ExampleGaps gaps = new ExampleGaps(u, p, from, to, vo, eo, model.numLabels(), model.eps());
        double[] tol = new double[n];
        StopRule[] stops = new StopRule[n];
        for (int k = 0; k < n; k++) {
            stops[k] = new StopRule(maxIterations, tolPerVariable * parts.get(k).numVariables(), CHECK_EVERY);
            tol[k] = stops[k].gapTolerance();
        }
        boolean[] done = new boolean[n];
        int left = n, sweeps = 0;
        // As MessagePassing.run: sweep checkEvery at a time, check the gap (when a tolerance is set), stop when small enough.
        while (sweeps < maxIterations && left > 0) {
            int step = Math.min(CHECK_EVERY, maxIterations - sweeps);
            mp.iterate(step);
            sweeps += step;
            if (!(tolPerVariable > 0)) continue;
            double[] m = ExampleGaps.messages(mp);
            List<Integer> stopping = new ArrayList<>();
            double[][] dp = new double[n][];
            for (int k = 0; k < n; k++) {
                if (done[k] || tol[k] <= 0) continue;
                dp[k] = gaps.dualPrimal(m, k);
                if (Math.abs(dp[k][0] - dp[k][1]) <= tol[k]) stopping.add(k);
            }
            if (!stopping.isEmpty()) {
                readOut(mp, stopping, dp, vo, sweeps, tol, out, first);
                for (int k : stopping) done[k] = true;
                left -= stopping.size();
            }
        }
        if (left > 0) {
            double[] m = ExampleGaps.messages(mp);
            List<Integer> rest = new ArrayList<>();
            double[][] dp = new double[n][];
            for (int k = 0; k < n; k++) {
                if (done[k]) continue;
                rest.add(k);
                dp[k] = gaps.dualPrimal(m, k);
            }
            readOut(mp, rest, dp, vo, sweeps, tol, out, first);
        }
    }

    /** Labels, marginals and the inference summary of the examples {@code which}, read from the engine now. */
    private static void readOut(MessagePassing mp, List<Integer> which, double[][] dp, int[] vo, int sweeps, double[] tol,
                                Prediction[] out, int first) {
        int[] labels = mp.decode();
        INDArray beliefs = mp.unaryBeliefs();
        for (int k : which) {
            INDArray marg = beliefs.get(NDArrayIndex.interval(vo[k], vo[k + 1]), NDArrayIndex.all()).dup('c');
            double d = dp[k][0], pr = dp[k][1];
            out[first + k] = new Prediction(Arrays.copyOfRange(labels, vo[k], vo[k + 1]), marg,
                    new InferenceResult(sweeps, d, pr, d - pr, Math.abs(d - pr) <= tol[k]));
        }
    }

    /** Sweeps between two gap checks (as {@link #defaultStop}). */
    public static final int CHECK_EVERY = 10;
}
