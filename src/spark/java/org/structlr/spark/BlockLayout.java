package org.structlr.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Which examples go into which block: each split cut into min(partitions, examples) contiguous
 * ranges of example ids, training blocks first. Only the counts decide it, so the driver lays out
 * a data set it never read, and the blocks (and so the row order of every fit) are the same
 * whether the examples were shipped from the driver or read by the executors.
 */
final class BlockLayout implements Serializable {
    /** Block {@code index}: examples {@code first .. first + count - 1} of its split. */
    record Spec(int index, boolean test, int first, int count) implements Serializable {}

    private final List<Spec> specs = new ArrayList<>();

    BlockLayout(int trainExamples, int testExamples, int partitions) {
        split(trainExamples, false, Math.min(partitions, trainExamples));
        if (testExamples > 0) split(testExamples, true, Math.min(partitions, testExamples));
    }

    private void split(int n, boolean test, int parts) {
        for (int p = 0; p < parts; p++) {
            int lo = (int) ((long) n * p / parts), hi = (int) ((long) n * (p + 1) / parts);
            specs.add(new Spec(specs.size(), test, lo, hi - lo));
        }
    }

    int size() {
        return specs.size();
    }

    Spec spec(int index) {
        return specs.get(index);
    }

    List<Spec> specs() {
        return List.copyOf(specs);
    }

    /** Block indices 0..size-1, one per partition: what the stages map over. */
    JavaRDD<Integer> indices(JavaSparkContext sc) {
        return indices(sc, specs.size());
    }

    static JavaRDD<Integer> indices(JavaSparkContext sc, int n) {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) ids.add(i);
        return sc.parallelize(ids, n);
    }

    /** The contiguous ranges of {@code n} items in {@code parts} pieces (the same cut as the blocks'). */
    static int[] bounds(int n, int parts) {
        int[] b = new int[parts + 1];
        for (int p = 0; p <= parts; p++) b[p] = (int) ((long) n * p / parts);
        return b;
    }
}
