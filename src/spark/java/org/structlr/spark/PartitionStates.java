package org.structlr.spark;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import org.structlr.learn.BatchStates;
import org.structlr.learn.EngineState;
import org.structlr.learn.ExampleStates;
import org.structlr.learn.Functions;
import org.structlr.learn.SubspaceObjective;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;

/**
 * The learner's examples in Spark partitions: the {@link ExampleStates} that
 * {@link org.structlr.learn.AlternatingLearner} (the one loop) runs on with {@code train --spark}.
 * Each partition is a {@link Block} (a contiguous range of example ids of one split) with its
 * engines' exact states; every operation is a stage in which each block restores its
 * {@link BatchStates} (the one machine's implementation, on the block's examples) at the current
 * functions, runs the operation, and keeps the new states. Examples are independent graphs, so the
 * messages are those of one machine; the sums (dual, F, errors, the extrapolation line's R) are
 * added on the driver in block order, never in the order tasks finish, so a rerun or a partition
 * recomputed after a lost executor gives the same numbers bit for bit. The driver holds only the
 * functions, which it broadcasts as their saved bytes, and those sums.
 *
 * <p>The oracle fits read the rows where they are ({@link DistributedFits}): each fit phase first
 * computes the blocks' biases (one stage), which every evaluation of a distributed fit then reads.
 *
 * <p>Fault tolerance: every stage is a deterministic function of the previous blocks and broadcast
 * functions, so Spark recomputes a lost partition to the same bits. Every {@code cutEvery}
 * iterations (and after the driver collected the states for a checkpoint) the blocks are rebuilt
 * from their examples and their states, which cuts the lineage a recomputation would otherwise walk
 * back. With a lineage folder (Spark's checkpoint directory, {@code lineageOnExecutors}) the states
 * go there (Spark's reliable checkpoint of an RDD of states, written and read by the executors: the
 * driver never holds them); without one they are collected on the driver and broadcast back, which
 * only suits data sets whose messages fit the driver. A checkpoint for {@code --resume} collects
 * the messages on the driver either way (its file is one machine's format).
 */
final class PartitionStates implements ExampleStates {
    private final JavaSparkContext sc;
    private final BlockData data;
    private final double eps;
    private final boolean evaluation;
    private final int L, unaryDim, pairDim;
    private final Layout layout;
    private final int cutEvery;
    private final boolean lineageOnExecutors;
    private long trainVariables = -1, testVariables = -1;
    /** Training rows per factor type (unary: the variables; a pairwise type: its edges), counted once by the executors. */
    private final java.util.Map<Integer, Long> trainRows = new java.util.HashMap<>();

    private JavaRDD<Block> blocks;
    /** RDDs persisted since the last one known to be materialised (unpersisted once a later one is). */
    private final List<JavaRDD<?>> cached = new ArrayList<>();
    /** Broadcasts the current blocks may still need (a lineage cut frees the older ones). */
    private final List<Broadcast<?>> live = new ArrayList<>();
    private Broadcast<Shipped> current;
    /** Which fit phase's biases the current blocks hold: UNARY, PAIR, or NONE. */
    private int biases = NONE;
    private static final int NONE = -2, PAIR = 0;
    private JavaRDD<BatchStates.Snapshot> lastCut;   // the states of the latest cut on the executors (its files go at the next)
    /** The bins of this run's boosted fits (made by each factor type's first fit). */
    private final DistributedBoost.Bins boostBins = new DistributedBoost.Bins();

    /**
     * @param data               the examples in the executors, laid out in blocks
     * @param evaluation         whether to keep the warm-started evaluation engines
     * @param lineageOnExecutors lineage cuts through Spark's checkpoint directory (else through the driver)
     */
    PartitionStates(JavaSparkContext sc, BlockData data, double eps, boolean evaluation, int numLabels, List<String> pairTypes,
                    int unaryDim, int pairDim, int cutEvery, boolean lineageOnExecutors) {
        if (lineageOnExecutors && sc.sc().getCheckpointDir().isEmpty()) throw new IllegalArgumentException("lineage on the executors needs Spark's checkpoint directory");
        this.sc = sc;
        this.data = data;
        this.eps = eps;
        this.evaluation = evaluation;
        this.L = numLabels;
        this.layout = new Layout(data.layout, numLabels, pairTypes.toArray(new String[0]));
        this.unaryDim = unaryDim;
        this.pairDim = pairDim;
        this.cutEvery = cutEvery;
        this.lineageOnExecutors = lineageOnExecutors;
    }

    /** Counted by the executors once (the driver may never have read the examples). */
    @Override
    public long numTrainVariables() {
        if (trainVariables < 0) trainVariables = blocks.filter(b -> !b.test).map(b -> (long) b.batch().graph().numVariables()).reduce(Long::sum);
        return trainVariables;
    }

    /** Counted by the executors once. */
    @Override
    public long numTestVariables() {
        if (testVariables < 0) testVariables = blocks.filter(b -> b.test).map(b -> (long) b.batch().graph().numVariables()).fold(0L, Long::sum);
        return testVariables;
    }

    // ------------------------------------------------------------------ stages

    /** How a run's blocks are made from the examples the executors hold (shipped to them: no reference to the driver's objects). */
    record Layout(BlockLayout layout, int numLabels, String[] pairTypes) implements Serializable {
        /** Block {@code l.index()} with its examples and the given states (null: fresh engines). */
        Block block(BlockData.Loaded l, BatchStates.Snapshot s) {
            BlockLayout.Spec spec = layout.spec(l.index());
            return new Block(spec.index(), spec.test(), spec.first(), l.examples(), numLabels, pairTypes, s, null, null);
        }
    }

    /** One operation on a block's states at the current functions; the block with the states it leaves. */
    interface Step extends Serializable {
        void run(BatchStates s);
    }

    /** The blocks after {@code step} on every training block (at the functions of {@code at}), persisted; lazy. */
    private JavaRDD<Block> stage(JavaRDD<Block> from, Broadcast<Shipped> at, Step step) {
        double e = eps;
        boolean ev = evaluation;
        return persist(from.map(b -> {
            if (b.test) return b;
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                step.run(s);
                return b.with(s.snapshot());
            }
        }));
    }

    private <T> JavaRDD<T> persist(JavaRDD<T> r) {
        JavaRDD<T> p = r.persist(StorageLevel.MEMORY_ONLY());
        cached.add(p);
        return p;
    }

    /** {@code blocks} is materialised: the RDDs persisted before it go (recomputable from the lineage if lost). */
    private void materialised() {
        for (JavaRDD<?> r : cached) if (r != blocks) r.unpersist(false);
        cached.clear();
        cached.add(blocks);
    }

    /** Per training block, a number from its states at the current functions, added in block order. */
    private double sum(Function<BatchStates, Double> of) {
        double e = eps;
        boolean ev = evaluation;
        Broadcast<Shipped> at = current;
        List<DistributedFits.Indexed> parts = blocks.filter(b -> !b.test).map(b -> {
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                return new DistributedFits.Indexed(b.index, new double[] {of.call(s)});
            }
        }).collect();
        return DistributedFits.sumInBlockOrder(parts)[0];
    }

    private Broadcast<Shipped> broadcast(Functions f) {
        Broadcast<Shipped> b = sc.broadcast(Shipped.of(f));
        live.add(b);
        return b;
    }

    // ------------------------------------------------------------------ ExampleStates

    @Override
    public void start(Functions functions, Engines from) {
        current = broadcast(functions);
        Broadcast<Shipped> at = current;
        List<Broadcast<Engines>> resumed = from == null ? List.of() : slices(from);
        double e = eps;
        boolean ev = evaluation;
        Layout lay = layout;
        blocks = persist(data.blocks.map(l -> {
            Block b = lay.block(l, null);
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                if (!resumed.isEmpty()) s.start(at.value().functions(), resumed.get(l.index()).value());
                return b.with(s.snapshot());
            }
        }));
        blocks.count();
        live.addAll(resumed);   // the blocks' lineage reads them until the first cut
        materialised();
    }

    /**
     * One broadcast per block of its part of a saved state: the block's exact engine states when
     * the state is this class's ({@link #concat}: written by a Spark run with as many blocks), else
     * its slice of the messages (a checkpoint of one machine, or of another layout: resumed through
     * the messages).
     */
    private List<Broadcast<Engines>> slices(Engines from) {
        if (from.train() == null) throw new IllegalArgumentException("the state lacks the training engine's messages");
        if (evaluation && (from.trainEval() == null || (data.testEdges.length > 0 && from.testEval() == null))) {
            throw new IllegalArgumentException("the state lacks the messages of the evaluation engines");
        }
        List<BlockLayout.Spec> specs = data.layout.specs();
        long trainBlocks = specs.stream().filter(s -> !s.test()).count(), testBlocks = specs.size() - trainBlocks;
        List<EngineState> train = split(from.train(), trainBlocks), trainEval = split(from.trainEval(), trainBlocks);
        List<EngineState> testEval = split(from.testEval(), testBlocks);
        List<Broadcast<Engines>> out = new ArrayList<>();
        int k = 0;
        for (BlockLayout.Spec s : specs) {
            int[] edges = s.test() ? data.testEdges : data.trainEdges;
            long lo = 0, n = 0;
            for (int e = 0; e < s.first(); e++) lo += edges[e];
            for (int e = s.first(); e < s.first() + s.count(); e++) n += edges[e];
            int from0 = (int) (lo * 2 * L), to0 = (int) ((lo + n) * 2 * L);
            int nth = s.test() ? (int) (s.index() - trainBlocks) : k++;
            Engines slice = s.test() ? new Engines(null, null, part(from.testEval(), testEval, nth, from0, to0))
                    : new Engines(part(from.train(), train, nth, from0, to0), part(from.trainEval(), trainEval, nth, from0, to0), null);
            out.add(sc.broadcast(slice));
        }
        return out;
    }

    /** Block {@code nth}'s part: its exact state and messages when the state was split, else its messages only. */
    private static EngineState part(EngineState whole, List<EngineState> split, int nth, int from, int to) {
        if (whole == null) return null;
        float[] m = java.util.Arrays.copyOfRange(whole.messages(), from, to);
        if (split == null) return new EngineState(null, null, m);
        EngineState e = split.get(nth);
        return new EngineState(e.engine(), e.state(), m);
    }

    /** Messages as an engine state without an engine-specific part (restored through the messages). */
    private static EngineState portable(float[] messages) {
        return new EngineState(null, null, messages);
    }

    /** The engine of exact states concatenated by {@link #concat}: this prefix and the blocks' engine class. */
    static final String EXACT = PartitionStates.class.getName() + ":";

    /**
     * A state written by {@link #concat} cut back into its blocks' exact states (engine, state; no
     * messages); null when it is not one, or was written with another number of blocks.
     */
    private static List<EngineState> split(EngineState e, long blocks) {
        if (e == null || e.state() == null || e.engine() == null || !e.engine().startsWith(EXACT)) return null;
        String engine = e.engine().substring(EXACT.length());
        float[] st = e.state();
        List<EngineState> out = new ArrayList<>();
        for (int at = 0; at < st.length; ) {
            if (at + 2 > st.length) return null;
            int len = ((int) st[at] << 16) | (int) st[at + 1];
            if (len < 0 || at + 2 + len > st.length) return null;
            out.add(new EngineState(engine, java.util.Arrays.copyOfRange(st, at + 2, at + 2 + len), new float[0]));
            at += 2 + len;
        }
        return out.size() == blocks ? out : null;
    }

    /** The training rows of factor type {@code type} over all blocks, counted by the executors once (a type's edges never change). */
    private long trainRows(int type) {
        return trainRows.computeIfAbsent(type, t -> blocks.filter(b -> !b.test).map(b -> (long) DistributedFits.labels(b.batch(), t).length)
                .fold(0L, Long::sum));
    }

    @Override
    public ScoreFunction fit(int type, Oracle oracle, ScoreFunction previous) {
        // a type with no training row (an edge_type only in test or val) has nothing to fit: its
        // function stays, as BatchStates.fit leaves it on one machine
        if (trainRows(type) == 0) return previous;
        int phase = type == Functions.UNARY ? Functions.UNARY : PAIR;
        if (biases != phase) {
            // the biases of this phase's fits, once: every evaluation of a distributed fit reads them
            double e = eps;
            boolean ev = evaluation;
            Broadcast<Shipped> at = current;
            blocks = persist(blocks.map(b -> {
                if (b.test) return b;
                try (BatchStates s = b.states(e, ev, at.value().functions())) {
                    return phase == Functions.UNARY ? b.withBiases(EngineState.flat(s.unaryBias()), null)
                            : b.withBiases(null, EngineState.flat(s.pairBias()));
                }
            }));
            biases = phase;
        }
        boolean unary = type == Functions.UNARY;
        return DistributedFits.fit(oracle, boostBins, blocks, type, unary ? L : L * L, unary ? unaryDim : pairDim, previous);
    }

    @Override
    public void setFunctions(Functions functions) {
        current = broadcast(functions);
        biases = NONE;
    }

    @Override
    public void iterate(int sweeps) {
        blocks = stage(blocks, current, s -> s.iterate(sweeps));
        biases = NONE;
        blocks.count();
        materialised();
    }

    @Override
    public double dual() {
        return sum(BatchStates::dual);
    }

    @Override
    public double objective() {
        return sum(BatchStates::objective);
    }

    @Override
    public Errors evaluate(int sweeps) {
        double e = eps;
        boolean ev = evaluation;
        Broadcast<Shipped> at = current;
        JavaRDD<Evaluated> done = persist(blocks.map(b -> {
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                Errors err = s.evaluate(sweeps);
                return new Evaluated(b.with(s.snapshot()), err);
            }
        }));
        Errors sum = Errors.NONE;
        for (Errors err : done.map(Evaluated::errors).collect()) sum = sum.plus(err);   // integer counts: any order
        blocks = persist(done.map(Evaluated::block));
        blocks.count();
        materialised();
        return sum;
    }

    /** A block after its evaluation, and its errors. */
    record Evaluated(Block block, Errors errors) implements Serializable {}

    @Override
    public void endIteration(int iteration) {
        // (a partition's engines are rebuilt from their states in every stage: an inexact one is re-seated every stage)
        if (iteration % cutEvery == 0) cut();
    }

    /** Every block's engine states collected on the driver, as whole-split messages (one machine's checkpoint format). */
    @Override
    public Engines states() {
        double e = eps;
        boolean ev = evaluation;
        Broadcast<Shipped> at = current;
        List<Taken> parts = new ArrayList<>(blocks.map(b -> {
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                return new Taken(b.index, b.test, s.states());
            }
        }).collect());
        parts.sort((a, b) -> Integer.compare(a.index(), b.index()));
        return new Engines(concat(parts, false, Role.TRAIN), concat(parts, false, Role.TRAIN_EVAL), concat(parts, true, Role.TEST_EVAL));
    }

    /** One block's engine states, collected on the driver. */
    record Taken(int index, boolean test, Engines engines) implements Serializable {}

    private enum Role { TRAIN, TRAIN_EVAL, TEST_EVAL }

    /**
     * One engine role over the whole split, in block order: the messages concatenated (one machine's
     * checkpoint format), and when every block's engine is of one class with an exact state, the
     * blocks' exact states concatenated, each after its length (two floats of 16 bits), under the
     * engine name {@link #EXACT} + that class: a Spark run with as many blocks resumes it bit for bit
     * ({@link #split}), any other run through the messages. Null where no block has that engine.
     */
    private static EngineState concat(List<Taken> parts, boolean test, Role role) {
        List<EngineState> es = new ArrayList<>();
        for (Taken t : parts) {
            if (t.test() != test) continue;
            EngineState e = role == Role.TRAIN ? t.engines().train() : role == Role.TRAIN_EVAL ? t.engines().trainEval() : t.engines().testEval();
            if (e == null) return null;
            es.add(e);
        }
        if (es.isEmpty()) return null;
        int n = 0, ns = 0;
        String engine = es.get(0).engine();
        boolean exact = true;
        for (EngineState e : es) {
            n += e.messages().length;
            exact &= e.state() != null && e.engine() != null && e.engine().equals(engine);
            if (e.state() != null) ns += 2 + e.state().length;
        }
        float[] all = new float[n], states = exact ? new float[ns] : null;
        int at = 0, as = 0;
        for (EngineState e : es) {
            System.arraycopy(e.messages(), 0, all, at, e.messages().length);
            at += e.messages().length;
            if (!exact) continue;
            int len = e.state().length;
            states[as++] = len >>> 16;
            states[as++] = len & 0xFFFF;
            System.arraycopy(e.state(), 0, states, as, len);
            as += len;
        }
        return exact ? new EngineState(EXACT + engine, states, all) : portable(all);
    }

    // ------------------------------------------------------------------ extrapolation

    @Override
    public void markLineStart() {
        blocks = stage(blocks, current, BatchStates::markLineStart);
        biases = NONE;
    }

    @Override
    public Line line(Functions x0, boolean moveUnary, boolean movePair) {
        double e = eps;
        boolean ev = evaluation;
        Broadcast<Shipped> at = current;
        boolean moveMessages = blocks.filter(b -> !b.test).map(b -> {
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                return s.lineMessagesFinite();
            }
        }).collect().stream().allMatch(f -> f);
        if (!moveMessages && !moveUnary && !movePair) return null;
        Broadcast<Shipped> start = broadcast(x0);
        JavaRDD<BlockLine> lines = blocks.filter(b -> !b.test).map(b -> {
            try (BatchStates s = b.states(e, ev, at.value().functions())) {
                return new BlockLine(b.index, s.lineObjective(start.value().functions(), moveUnary, movePair, moveMessages));
            } catch (IllegalArgumentException x) {
                return new BlockLine(b.index, null); // a non-finite direction
            }
        }).persist(StorageLevel.MEMORY_ONLY());
        if (lines.map(l -> l.objective() == null).collect().contains(true)) {
            lines.unpersist(false);
            return null;
        }
        return new SparkLine(lines, moveUnary, movePair, moveMessages);
    }

    /** One training block's R on the line (kept in the executors' memory for the step's Newton passes). */
    record BlockLine(int index, SubspaceObjective objective) implements Serializable {}

    /** The line over the training blocks: R summed in block order; moves are stages. */
    private final class SparkLine implements Line {
        private final JavaRDD<BlockLine> lines;
        private final boolean moveUnary, movePair, moveMessages;
        private JavaRDD<Block> atX1;
        private Broadcast<Shipped> x1;

        SparkLine(JavaRDD<BlockLine> lines, boolean moveUnary, boolean movePair, boolean moveMessages) {
            this.lines = lines;
            this.moveUnary = moveUnary;
            this.movePair = movePair;
            this.moveMessages = moveMessages;
        }

        @Override
        public SubspaceObjective.Eval at(double[] b) {
            List<IndexedEval> parts = new ArrayList<>(lines.map(l -> new IndexedEval(l.index(), l.objective().at(b))).collect());
            parts.sort((p, q) -> Integer.compare(p.index(), q.index()));
            SubspaceObjective.Eval sum = parts.get(0).eval();
            for (int k = 1; k < parts.size(); k++) sum = sum.plus(parts.get(k).eval());
            return sum;
        }

        @Override
        public void moveTo(double beta, Functions atBeta) {
            atX1 = blocks;
            x1 = current;
            Broadcast<Shipped> to = broadcast(atBeta);
            boolean u = moveUnary, p = movePair, m = moveMessages;
            blocks = stage(blocks, current, s -> s.lineMove(beta, to.value().functions(), u, p, m));
            blocks.count();
            current = to;
            biases = NONE;
        }

        @Override
        public void undo() {
            // x1's state, re-seated: what one machine's undo leaves (x1's messages set back)
            blocks = stage(atX1, x1, BatchStates::reseatTraining);
            blocks.count();
            current = x1;
            biases = NONE;
            materialised();
        }

        /** The blocks are materialised at the end of a step (moved, undone or untouched): the rest goes. */
        @Override
        public void release() {
            lines.unpersist(false);
            materialised();
        }
    }

    record IndexedEval(int index, SubspaceObjective.Eval eval) implements Serializable {}

    // ------------------------------------------------------------------ lineage cuts

    /** New blocks from the examples and the current states (then the broadcasts the old blocks needed go). */
    private void cut() {
        List<Broadcast<?>> spent = new ArrayList<>(live);
        spent.remove(current);
        live.clear();
        live.add(current);
        JavaRDD<Block> fresh;
        if (lineageOnExecutors) {
            JavaRDD<BatchStates.Snapshot> cut = blocks.map(b -> b.snapshot).persist(StorageLevel.MEMORY_AND_DISK());   // written to the checkpoint from memory, not recomputed
            cut.checkpoint();
            // partition i of both is block i
            Layout lay = layout;
            fresh = data.blocks.zipPartitions(cut, (ls, ss) -> {
                List<Block> out = new ArrayList<>(1);
                while (ls.hasNext()) out.add(lay.block(ls.next(), ss.next()));
                return out.iterator();
            }).persist(StorageLevel.MEMORY_ONLY());
            fresh.count();   // the checkpoint files are written after this job, by the executors
            cut.unpersist(false);
            deleteCheckpoint(lastCut);
            lastCut = cut;
        } else {
            List<Snapshot> states = new ArrayList<>(blocks.map(b -> new Snapshot(b.index, b.snapshot)).collect());
            List<Broadcast<BatchStates.Snapshot>> saved = new ArrayList<>(Collections.nCopies(states.size(), null));
            for (Snapshot s : states) {
                Broadcast<BatchStates.Snapshot> b = sc.broadcast(s.states());
                saved.set(s.index(), b);
                live.add(b);
            }
            Layout lay = layout;
            fresh = data.blocks.map(l -> lay.block(l, saved.get(l.index()).value())).persist(StorageLevel.MEMORY_ONLY());
            fresh.count();
        }
        for (Broadcast<?> b : spent) b.destroy();
        for (JavaRDD<?> r : cached) r.unpersist(false);
        cached.clear();
        blocks = fresh;
        cached.add(fresh);
        biases = NONE;
    }

    /** A block's states, collected at a cut through the driver. */
    record Snapshot(int index, BatchStates.Snapshot states) implements Serializable {}

    /** Deletes the checkpoint files of a cut no block reads any more (Spark keeps them otherwise). */
    private void deleteCheckpoint(JavaRDD<BatchStates.Snapshot> cut) {
        if (cut == null || !cut.getCheckpointFile().isPresent()) return;
        String file = cut.getCheckpointFile().get();
        try {
            org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(file);
            path.getFileSystem(sc.hadoopConfiguration()).delete(path, true);
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(PartitionStates.class).warn("cannot delete the spent lineage checkpoint {}: {}", file, e.getMessage());
        }
    }

    @Override
    public void close() {
        for (JavaRDD<?> r : cached) r.unpersist(false);
        cached.clear();
        for (Broadcast<?> b : live) b.destroy();
        live.clear();
        deleteCheckpoint(lastCut);
    }

    // ------------------------------------------------------------------ functions on the executors

    /** Functions as their saved bytes (restored once per executor). */
    static final class Shipped implements Serializable {
        private final FunctionBytes unary;
        private final List<FunctionBytes> pair;
        private transient Functions functions;

        private Shipped(FunctionBytes unary, List<FunctionBytes> pair) {
            this.unary = unary;
            this.pair = pair;
        }

        static Shipped of(Functions f) {
            List<FunctionBytes> p = new ArrayList<>();
            for (ScoreFunction g : f.pair()) p.add(FunctionBytes.of(g));
            return new Shipped(FunctionBytes.of(f.unary()), p);
        }

        synchronized Functions functions() {
            if (functions == null) {
                List<ScoreFunction> p = new ArrayList<>();
                for (FunctionBytes b : pair) p.add(FunctionBytes.function(b));
                functions = new Functions(FunctionBytes.function(unary), p);
            }
            return functions;
        }
    }
}
