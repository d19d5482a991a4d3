package org.structlr.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Example;
import org.structlr.learn.AlternatingLearner;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearnerState;
import org.structlr.learn.StateSink;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * The paper's Alg. 1 on Spark, iteration for iteration the {@link AlternatingLearner} of one
 * machine: the examples live in partitions ({@link Block}s, contiguous ranges of example ids) with
 * their messages; each half-iteration's sweeps run inside a {@code map} over the blocks with the
 * CPU engine; the oracle fits read the rows where they are ({@link DistributedFits}); the driver
 * holds only the fitted functions, which it broadcasts, and the per-iteration sums.
 *
 * <p>Fault tolerance: every stage is a deterministic function of the previous blocks and broadcast
 * functions, so Spark recomputes a lost partition to the same bits. Every {@code cutEvery}
 * iterations (and whenever the sink wants a checkpoint) the blocks are rebuilt from their examples
 * and their states, which cuts the lineage the recomputation would otherwise walk back. With a
 * lineage folder (Spark's checkpoint directory, {@code lineageOnExecutors}) the states go there
 * (Spark's reliable checkpoint of an RDD of states, written and read by the executors: the driver
 * never holds them); without one they are collected on the driver and broadcast back, which only
 * suits data sets whose messages fit the driver. A checkpoint for {@code --resume} collects the
 * messages on the driver either way (its file is one machine's format).
 */
final class SparkLearner {
    private final JavaSparkContext sc;
    private final LearnSettings settings;
    private final Oracle unaryOracle;
    private final List<Oracle> pairOracles;
    private final int partitions;
    private final int cutEvery;
    private final boolean lineageOnExecutors;

    SparkLearner(JavaSparkContext sc, LearnSettings settings, Oracle unaryOracle, List<Oracle> pairOracles, int partitions, int cutEvery,
                 boolean lineageOnExecutors) {
        if (lineageOnExecutors && sc.sc().getCheckpointDir().isEmpty()) throw new IllegalArgumentException("lineage on the executors needs Spark's checkpoint directory");
        this.lineageOnExecutors = lineageOnExecutors;
        this.sc = sc;
        this.settings = settings;
        this.unaryOracle = unaryOracle;
        this.pairOracles = List.copyOf(pairOracles);
        this.partitions = partitions;
        this.cutEvery = cutEvery;
    }

    /** As {@link AlternatingLearner#train(org.structlr.model.ExampleBatch, org.structlr.model.ExampleBatch, LearnerState, LearnListener, StateSink)}. */
    AlternatingLearner.Result train(List<Example> train, List<Example> test, int L, List<String> pairTypes, int unaryDim, int pairDim,
                                    LearnerState from, LearnListener listener, StateSink sink) {
        BlockData data = BlockData.shipped(sc, train, test, partitions);
        try {
            return train(data, L, pairTypes, unaryDim, pairDim, from, listener, sink);
        } finally {
            data.release();
        }
    }

    /** As above, on examples already in the executors ({@link BlockData}, laid out with this learner's partitions). */
    AlternatingLearner.Result train(BlockData data, int L, List<String> pairTypes, int unaryDim, int pairDim,
                                    LearnerState from, LearnListener listener, StateSink sink) {
        int numPairTypes = pairTypes.size();
        if (pairOracles.size() != numPairTypes) throw new IllegalArgumentException(pairOracles.size() + " pairwise oracles for " + numPairTypes + " pairwise types");
        if (from != null && from.iteration() > settings.iterations()) {
            throw new IllegalArgumentException("cannot continue from iteration " + from.iteration() + " to " + settings.iterations());
        }
        if (from != null && settings.evalSweeps() > 0 && (from.trainEval() == null || (data.testEdges.length > 0 && from.testEval() == null))) {
            throw new IllegalArgumentException("the state lacks the messages of the evaluation engines");
        }
        double eps = settings.eps();
        int sweeps = settings.sweepsPerFit(), evalSweeps = settings.evalSweeps();
        Layout layout = new Layout(data.layout, L, pairTypes);

        ScoreFunction unary = from == null ? null : from.unary();
        List<ScoreFunction> pair = from == null ? new ArrayList<>(Collections.nCopies(numPairTypes, null)) : new ArrayList<>(from.pair());
        List<IterationRecord> curve = from == null ? new ArrayList<>() : new ArrayList<>(from.curve());
        long fitNs = from == null ? 0 : Math.round(from.fitSeconds() * 1e9);
        long passNs = from == null ? 0 : Math.round(from.passingSeconds() * 1e9);
        long evalNs = from == null ? 0 : Math.round(from.evalSeconds() * 1e9);
        long start = System.nanoTime() - (from == null ? 0 : Math.round(from.seconds() * 1e9));

        List<Broadcast<?>> live = new ArrayList<>();
        Broadcast<Functions> startFns = broadcast(live, unary, pair);
        List<Broadcast<Saved>> resumed = layout.resumed(sc, from, data);
        JavaRDD<Block> blocks = persist(data.blocks.map(l -> BlockSteps.start(layout.start(l, resumed.isEmpty() ? null : resumed.get(l.index()).value()),
                startFns.value().unary(), startFns.value().pair(), eps)));
        List<JavaRDD<Block>> cached = new ArrayList<>(List.of(blocks));
        JavaRDD<Saved> lastCut = null;   // the states of the latest cut on the executors (its checkpoint files go at the next)
        for (int it = from == null ? 1 : from.iteration() + 1; it <= settings.iterations(); it++) {
            long t0 = System.nanoTime();
            unary = DistributedFits.fit(unaryOracle, blocks, -1, L, unaryDim, unary);
            Broadcast<Functions> afterUnary = broadcast(live, unary, pair);
            long t1 = System.nanoTime();
            JavaRDD<Block> swept = persist(blocks.map(b -> BlockSteps.afterUnaryFit(b, afterUnary.value().unary(), afterUnary.value().pair(), eps, sweeps)));
            cached.add(swept);
            swept.count();
            long t2 = System.nanoTime();
            for (int t = 0; t < numPairTypes; t++) pair.set(t, DistributedFits.fit(pairOracles.get(t), swept, t, L * L, pairDim, pair.get(t)));
            Broadcast<Functions> afterPair = broadcast(live, unary, pair);
            long t3 = System.nanoTime();
            boolean wanted = sink.wants(it, settings.iterations());
            JavaRDD<Block> next = persist(swept.map(b -> BlockSteps.afterPairFit(b, afterPair.value().unary(), afterPair.value().pair(),
                    eps, sweeps, evalSweeps, wanted)));
            cached.add(next);
            double[] s = DistributedFits.sumInBlockOrder(next.map(b -> new DistributedFits.Indexed(b.index, b.stats)).collect());
            long t4 = System.nanoTime();
            // the final sweeps, the evaluation and the stats are one stage: its time counts as message passing
            fitNs += (t1 - t0) + (t3 - t2);
            passNs += (t2 - t1) + (t4 - t3);
            double objective = (s[BlockSteps.DUAL] - s[BlockSteps.F]) / s[BlockSteps.TRAIN_VARS];
            double trainErr = evalSweeps > 0 ? s[BlockSteps.TRAIN_WRONG] / s[BlockSteps.TRAIN_VARS] : Double.NaN;
            double testErr = evalSweeps > 0 && s[BlockSteps.TEST_VARS] > 0 ? s[BlockSteps.TEST_WRONG] / s[BlockSteps.TEST_VARS] : Double.NaN;
            blocks = next;
            // drop the stages before this one from memory (recomputable from the lineage if lost)
            for (JavaRDD<Block> r : cached.subList(0, cached.size() - 1)) r.unpersist(false);
            cached = new ArrayList<>(List.of(next));
            IterationRecord rec = new IterationRecord(it, objective, trainErr, testErr, (System.nanoTime() - start) / 1e9);
            curve.add(rec);
            if (wanted || it % cutEvery == 0) {
                long t5 = System.nanoTime();
                List<Saved> states = wanted || !lineageOnExecutors
                        ? blocks.map(b -> new Saved(b.index, b.state, b.evalState, b.unaryBias, b.messages, b.evalMessages)).collect() : null;
                if (wanted) {
                    INDArray[] m = layout.messages(states);
                    try {
                        // the portable form (messages): the partitions' engines are rebuilt on resume
                        sink.accept(new LearnerState(it, unary, pair, portable(m[0]), portable(m[1]), portable(m[2]), curve,
                                (System.nanoTime() - start) / 1e9, fitNs / 1e9, passNs / 1e9, evalNs / 1e9));
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot save the learner's state after iteration " + it + ": " + e.getMessage(), e);
                    }
                }
                // cut the lineage: new blocks from the examples and the states (then the broadcasts the old blocks needed go)
                List<Broadcast<?>> spent = new ArrayList<>(live);
                live.clear();
                JavaRDD<Block> fresh;
                if (lineageOnExecutors) {
                    JavaRDD<Saved> cut = blocks.map(b -> new Saved(b.index, b.state, b.evalState, b.unaryBias, null, null))
                            .persist(StorageLevel.MEMORY_AND_DISK());   // written to the checkpoint from memory, not recomputed
                    cut.checkpoint();
                    // partition i of both is block i
                    fresh = persist(data.blocks.zipPartitions(cut, (ls, ss) -> {
                        List<Block> out = new ArrayList<>(1);
                        while (ls.hasNext()) out.add(layout.rebuild(ls.next(), ss.next()));
                        return out.iterator();
                    }));
                    fresh.count();   // the checkpoint files are written after this job, by the executors
                    cut.unpersist(false);
                    deleteCheckpoint(lastCut);
                    lastCut = cut;
                } else {
                    List<Broadcast<Saved>> saved = new ArrayList<>();
                    for (Saved st : states.stream().sorted((a, b) -> Integer.compare(a.index(), b.index())).toList()) {
                        Broadcast<Saved> b = sc.broadcast(new Saved(st.index(), st.state(), st.evalState(), st.unaryBias(), null, null));
                        saved.add(b);
                        live.add(b);
                    }
                    fresh = persist(data.blocks.map(l -> layout.rebuild(l, saved.get(l.index()).value())));
                    fresh.count();
                }
                for (Broadcast<?> b : spent) b.destroy();
                blocks.unpersist(false);
                blocks = fresh;
                cached = new ArrayList<>(List.of(fresh));
                evalNs += System.nanoTime() - t5;     // as on one machine, saving the state counts as evaluation
            }
            listener.onIteration(rec, settings.iterations());
        }
        for (JavaRDD<Block> r : cached) r.unpersist(false);
        for (Broadcast<?> b : live) b.destroy();
        for (Broadcast<?> b : resumed) b.destroy();
        deleteCheckpoint(lastCut);
        return new AlternatingLearner.Result(unary, pair, curve, fitNs / 1e9, passNs / 1e9, evalNs / 1e9);
    }

    /** Deletes the checkpoint files of a cut no block reads any more (Spark keeps them otherwise). */
    private void deleteCheckpoint(JavaRDD<Saved> cut) {
        if (cut == null || !cut.getCheckpointFile().isPresent()) return;
        String file = cut.getCheckpointFile().get();
        try {
            org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file);
            path.getFileSystem(sc.hadoopConfiguration()).delete(path, true);
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(SparkLearner.class).warn("cannot delete the spent lineage checkpoint {}: {}", file, e.getMessage());
        }
    }

    private Broadcast<Functions> broadcast(List<Broadcast<?>> live, ScoreFunction unary, List<ScoreFunction> pair) {
        Broadcast<Functions> b = sc.broadcast(Functions.of(unary, pair));
        live.add(b);
        return b;
    }

    private static JavaRDD<Block> persist(JavaRDD<Block> r) {
        return r.persist(StorageLevel.MEMORY_ONLY());
    }

    /** What the driver collects of a block at a lineage cut or a checkpoint: its states, no examples. */
    record Saved(int index, float[] state, float[] evalState, float[] unaryBias, float[] messages, float[] evalMessages)
            implements java.io.Serializable {}

    /** The functions an iteration's stage scores with, as their saved bytes (restored once per executor). */
    static final class Functions implements java.io.Serializable {
        private final FunctionBytes unary;
        private final List<FunctionBytes> pair;
        private transient ScoreFunction unaryFn;
        private transient List<ScoreFunction> pairFns;

        private Functions(FunctionBytes unary, List<FunctionBytes> pair) {
            this.unary = unary;
            this.pair = pair;
        }

        static Functions of(ScoreFunction unary, List<ScoreFunction> pair) {
            List<FunctionBytes> p = new ArrayList<>();
            for (ScoreFunction f : pair) p.add(FunctionBytes.of(f));
            return new Functions(FunctionBytes.of(unary), p);
        }

        synchronized ScoreFunction unary() {
            if (unaryFn == null && unary != null) unaryFn = unary.function();
            return unaryFn;
        }

        synchronized List<ScoreFunction> pair() {
            if (pairFns == null) {
                List<ScoreFunction> fs = new ArrayList<>();
                for (FunctionBytes b : pair) fs.add(FunctionBytes.function(b));
                pairFns = Collections.unmodifiableList(fs);
            }
            return pairFns;
        }
    }

    /** The blocks of a run (examples from {@link BlockData}, states from the stages), and the way back from blocks to whole-set message arrays. */
    private static final class Layout implements java.io.Serializable {
        private final BlockLayout blocks;
        private final int L;
        private final String[] types;

        Layout(BlockLayout blocks, int L, List<String> pairTypes) {
            this.blocks = blocks;
            this.L = L;
            this.types = pairTypes.toArray(new String[0]);
        }

        /** Block {@code l.index()} with its examples, the given states, biases and resume messages. */
        private Block block(BlockData.Loaded l, float[] state, float[] evalState, float[] unaryBias, float[] messages, float[] evalMessages) {
            BlockLayout.Spec s = blocks.spec(l.index());
            return new Block(s.index(), s.test(), s.first(), l.examples(), L, types, state, evalState, unaryBias, null, messages, evalMessages, null);
        }

        /** The block to start from: fresh, or carrying its slices of a resumed state's messages. */
        Block start(BlockData.Loaded l, Saved resumed) {
            return resumed == null ? block(l, null, null, null, null, null) : block(l, null, null, null, resumed.messages(), resumed.evalMessages());
        }

        /** A block with collected states (the resume messages of the start dropped). */
        Block rebuild(BlockData.Loaded l, Saved s) {
            return block(l, s.state(), s.evalState(), s.unaryBias(), null, null);
        }

        /** One broadcast per block of its slices of a resumed state's messages (none when not resuming). */
        List<Broadcast<Saved>> resumed(JavaSparkContext sc, LearnerState from, BlockData data) {
            List<Broadcast<Saved>> out = new ArrayList<>();
            if (from == null) return out;
            INDArray train = SparkLearner.messages(from.train(), L), trainEval = SparkLearner.messages(from.trainEval(), L);
            INDArray testEval = SparkLearner.messages(from.testEval(), L);
            for (BlockLayout.Spec s : blocks.specs()) {
                int[] edges = s.test() ? data.testEdges : data.trainEdges;
                int lo = 0, n = 0;
                for (int k = 0; k < s.first(); k++) lo += edges[k];
                for (int k = s.first(); k < s.first() + s.count(); k++) n += edges[k];
                float[] m = s.test() ? null : slice(train, lo, n);
                float[] ev = slice(s.test() ? testEval : trainEval, lo, n);
                out.add(sc.broadcast(new Saved(s.index(), null, null, null, m, ev)));
            }
            return out;
        }

        private float[] slice(INDArray m, int lo, int edges) {
            if (m == null) return null;
            return m.get(org.nd4j.linalg.indexing.NDArrayIndex.interval(lo, lo + edges)).castTo(DataType.FLOAT).dup('c').reshape(-1).toFloatVector();
        }

        /** [training, training evaluation, test evaluation] messages [E, 2, L] of the whole sets (null where no engine). */
        INDArray[] messages(List<Saved> states) {
            List<Saved> sorted = states.stream().sorted((a, b) -> Integer.compare(a.index(), b.index())).toList();
            return new INDArray[] {concat(sorted, false, false), concat(sorted, false, true), concat(sorted, true, true)};
        }

        private INDArray concat(List<Saved> parts, boolean test, boolean eval) {
            int n = 0;
            boolean any = false;
            for (Saved p : parts) {
                if (blocks.spec(p.index()).test() != test) continue;
                any = true;
                float[] m = eval ? p.evalMessages() : p.messages();
                if (m == null) return null;
                n += m.length;
            }
            if (!any) return null;
            float[] all = new float[n];
            int at = 0;
            for (Saved p : parts) {
                if (blocks.spec(p.index()).test() != test) continue;
                float[] m = eval ? p.evalMessages() : p.messages();
                System.arraycopy(m, 0, all, at, m.length);
                at += m.length;
            }
            return Nd4j.create(all, new long[] {n / (2L * L), 2, L}, DataType.FLOAT);
        }
    }

    /** A learner state's engine messages as [E, 2, L] (null when absent). */
    static INDArray messages(org.structlr.learn.EngineState e, int L) {
        if (e == null || e.messages() == null) return null;
        float[] m = e.messages();
        return org.nd4j.linalg.factory.Nd4j.create(m, new long[] {m.length / (2L * L), 2, L}, 'c');
    }

    /** Messages [E, 2, L] as an engine state without an engine-specific part (resumed through the messages). */
    static org.structlr.learn.EngineState portable(INDArray m) {
        if (m == null) return null;
        return new org.structlr.learn.EngineState(null, null, m.castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT).dup('c').data().asFloat());
    }
}
