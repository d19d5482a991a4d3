package org.structlr.spark;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetFiles;

/**
 * Not a test: a measurement of the heap a data set costs in {@code train --spark}, on an embedded
 * local[2] Spark (driver and executors in this one JVM), after full collections:
 * {@code executors} = the driver lists, the executors read and keep their blocks (BlockData.read);
 * {@code driver} = the driver reads the data set and ships it (Dataset.load, BlockData.shipped).
 * The difference is what the driver held of the data set before. Run (after test-compile):
 * {@code java <flags> -cp target/spark/test-classes:target/spark/classes:<classpath> org.structlr.spark.DriverHeapProbe MODE DIR}.
 */
public final class DriverHeapProbe {
    private DriverHeapProbe() {}

    static long used() throws InterruptedException {
        for (int k = 0; k < 3; k++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path dir = Path.of(args[1]).toAbsolutePath();
        try (JavaSparkContext sc = SparkTraining.open("local[2]")) {
            sc.parallelize(List.of(1, 2), 2).count();               // Spark's own start-up allocations before the baseline
            long base = used();
            long after;
            if (mode.equals("executors")) {
                DatasetFiles files = ExampleFiles.list(dir.toString(), java.util.Map.of());
                BlockData data = BlockData.read(sc, files, 2, HadoopFiles.settings(sc.getConf()));
                data.reads();                                        // the executors read and keep their blocks
                after = used();
                data.release();
            } else {
                Dataset ds = Dataset.load(dir);
                BlockData data = BlockData.shipped(sc, ds.train(), ds.test(), 2);
                data.blocks.count();
                after = used();
                data.release();
                if (ds.train().isEmpty()) throw new AssertionError();  // keeps the data set reachable until here
            }
            System.out.printf(Locale.ROOT, "%s: heap after full GCs %.1f MB above the started context%n", mode, (after - base) / 1e6);
        }
    }
}
