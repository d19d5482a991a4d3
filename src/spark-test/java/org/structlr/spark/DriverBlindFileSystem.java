package org.structlr.spark;

import java.io.IOException;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.spark.TaskContext;

/**
 * A loopback Hadoop file system ({@code blindfs://}, files on the local disk) that refuses to open
 * an example file (an {@code .npz} in a train/, test/ or val/ folder) outside a Spark task: on the driver. A run that succeeds on it read
 * every example in the executors; the files read there and the driver's refused attempts are
 * recorded for the tests. It can also be told to fail renames after a number of them (a write
 * that fails half-way).
 */
public class DriverBlindFileSystem extends LoopbackFileSystem {
    static final String SCHEME = "blindfs";
    /** .npz files opened inside Spark tasks (absolute paths). */
    static final Set<String> READ_IN_TASKS = ConcurrentHashMap.newKeySet();
    /** Attempts to open an .npz file outside any Spark task. */
    static final AtomicInteger DRIVER_ATTEMPTS = new AtomicInteger();
    /** Renames left before every rename fails (negative: never fail). */
    static final AtomicInteger RENAMES_LEFT = new AtomicInteger(-1);

    static void reset() {
        READ_IN_TASKS.clear();
        DRIVER_ATTEMPTS.set(0);
        RENAMES_LEFT.set(-1);
    }

    @Override
    public URI getUri() {
        return URI.create(SCHEME + ":///");
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        if (f.getName().endsWith(".npz") && f.getParent() != null && Set.of("train", "test", "val").contains(f.getParent().getName())) {
            if (TaskContext.get() == null) {
                DRIVER_ATTEMPTS.incrementAndGet();
                throw new IOException("the driver may not read example contents (" + f + ")");
            }
            READ_IN_TASKS.add(f.toUri().getPath());
        }
        return super.open(f, bufferSize);
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        if (RENAMES_LEFT.get() == 0) return false;
        if (RENAMES_LEFT.get() > 0) RENAMES_LEFT.decrementAndGet();
        return super.rename(src, dst);
    }
}
