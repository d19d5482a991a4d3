package org.structlr.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.storage.StorageLevel;
import org.structlr.data.DatasetFiles;
import org.structlr.data.Example;

/**
 * The examples of a run's blocks where the executors have them ({@link #blocks}: partition i holds
 * block i's examples), and the little the driver knows of them (the layout, each example's edge
 * count). Two ways to get there: {@link #shipped} (examples the driver holds, one broadcast per
 * block) and {@link #read} (the executors read their own files; the driver only listed them).
 */
final class BlockData {
    /** One block's examples on an executor, with what reading its files gave (null when shipped). */
    record Loaded(int index, ExampleRecord[] examples, ExampleFiles.FileRead[] reads) implements Serializable {}

    final BlockLayout layout;
    final JavaRDD<Loaded> blocks;
    /** Edges of each training and test example, in order (to cut a resumed state's messages into blocks). */
    final int[] trainEdges, testEdges;
    private final List<Broadcast<?>> broadcasts;

    private BlockData(BlockLayout layout, JavaRDD<Loaded> blocks, int[] trainEdges, int[] testEdges, List<Broadcast<?>> broadcasts) {
        this.layout = layout;
        this.blocks = blocks;
        this.trainEdges = trainEdges;
        this.testEdges = testEdges;
        this.broadcasts = broadcasts;
    }

    /**
     * Examples the driver holds, one broadcast per block. Not {@code parallelize(blocks)}: a
     * parallelized collection's partitions carry their elements, and every task of every later
     * stage and fit serialises its partition, so each L-BFGS evaluation would ship the data again.
     * A broadcast is fetched once per executor that needs it and stays on the driver for
     * recomputing lost partitions.
     */
    static BlockData shipped(JavaSparkContext sc, List<Example> train, List<Example> test, int partitions) {
        BlockLayout layout = new BlockLayout(train.size(), test.size(), partitions);
        List<Broadcast<ExampleRecord[]>> data = new ArrayList<>();
        for (BlockLayout.Spec s : layout.specs()) {
            List<Example> split = s.test() ? test : train;
            ExampleRecord[] recs = new ExampleRecord[s.count()];
            for (int k = 0; k < s.count(); k++) recs[k] = ExampleRecord.of(split.get(s.first() + k));
            data.add(sc.broadcast(recs));
        }
        JavaRDD<Loaded> blocks = layout.indices(sc).map(i -> new Loaded(i, data.get(i).value(), null));
        return new BlockData(layout, blocks, edges(train), edges(test), new ArrayList<>(data));
    }

    private static int[] edges(List<Example> examples) {
        return examples.stream().mapToInt(Example::numEdges).toArray();
    }

    /**
     * The executors read the training and test files of {@code files}, each block its own: kept in
     * memory (or on the executors' disks) for the run, read again from the file system only if an
     * executor is lost. Nothing is read by the driver. Reading happens at the first action (the
     * driver's check of {@link #reads}).
     */
    static BlockData read(JavaSparkContext sc, DatasetFiles files, int partitions, Map<String, String> settings) {
        BlockLayout layout = new BlockLayout(files.train().size(), files.test().size(), partitions);
        // each block's file names as a broadcast: a task's closure then carries handles, not every name of the data set
        List<Broadcast<String[]>> perBlock = new ArrayList<>();
        for (BlockLayout.Spec s : layout.specs()) {
            List<String> split = s.test() ? files.test() : files.train();
            perBlock.add(sc.broadcast(split.subList(s.first(), s.first() + s.count()).toArray(new String[0])));
        }
        JavaRDD<Loaded> blocks = layout.indices(sc).map(i -> load(i, perBlock.get(i).value(), settings))
                .persist(StorageLevel.MEMORY_AND_DISK());
        return new BlockData(layout, blocks, null, null, new ArrayList<>(perBlock));
    }

    /** Reads one block's files; the examples are kept only when every file of the block was good. */
    static Loaded load(int index, String[] files, Map<String, String> settings) {
        ExampleFiles.FileRead[] reads = new ExampleFiles.FileRead[files.length];
        ExampleRecord[] examples = new ExampleRecord[files.length];
        boolean good = true;
        for (int k = 0; k < files.length; k++) {
            ExampleFiles.FileRead r = ExampleFiles.read(files[k], settings);
            examples[k] = r.record();
            reads[k] = r.withoutExample();
            good &= r.error() == null;
        }
        return new Loaded(index, good ? examples : null, reads);
    }

    /**
     * What reading gave, every training then test file in order (no examples: facts, digests,
     * errors). The first action on the blocks: this is where the executors read.
     */
    List<ExampleFiles.FileRead> reads() {
        List<Loaded> got = new ArrayList<>(blocks.map(b -> new Loaded(b.index(), null, b.reads())).collect());
        got.sort((a, b) -> Integer.compare(a.index(), b.index()));
        List<ExampleFiles.FileRead> out = new ArrayList<>();
        for (Loaded l : got) out.addAll(List.of(l.reads()));
        return out;
    }

    /** Reads and checks files that no block keeps (the validation split), in {@code parts} tasks; in order. */
    static List<ExampleFiles.FileRead> check(JavaSparkContext sc, List<String> files, int parts, Map<String, String> settings) {
        if (files.isEmpty()) return List.of();
        int n = Math.min(parts, files.size());
        int[] b = BlockLayout.bounds(files.size(), n);
        List<Broadcast<String[]>> chunks = new ArrayList<>();
        for (int p = 0; p < n; p++) chunks.add(sc.broadcast(files.subList(b[p], b[p + 1]).toArray(new String[0])));
        List<Loaded> got = new ArrayList<>(BlockLayout.indices(sc, n).map(i -> new Loaded(i, null, load(i, chunks.get(i).value(), settings).reads())).collect());
        for (Broadcast<?> c : chunks) c.destroy();
        got.sort((x, y) -> Integer.compare(x.index(), y.index()));
        List<ExampleFiles.FileRead> out = new ArrayList<>();
        for (Loaded l : got) out.addAll(List.of(l.reads()));
        return out;
    }

    /** This data with the examples' edge counts (known on the driver after the check). */
    BlockData withEdges(int[] trainEdges, int[] testEdges) {
        return new BlockData(layout, blocks, trainEdges, testEdges, broadcasts);
    }

    /** Frees the examples on the executors (and the broadcasts on the driver). */
    void release() {
        blocks.unpersist(false);
        for (Broadcast<?> b : broadcasts) b.destroy();
    }
}
