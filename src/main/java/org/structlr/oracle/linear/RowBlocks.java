package org.structlr.oracle.linear;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs a body over blocks {@code 0 .. count-1} on up to {@code threads} threads: the calling thread
 * and helpers from one shared pool of daemon threads, each claiming the next block from a counter.
 * Waiting threads park (Future.get), never spin, so a busy machine slows the work down by its share
 * of the cores and no more (ND4J's OpenMP threads spin-wait, which made a 2-thread run 2.5x slower
 * beside one other process). The body writes per-block results; callers combine them in block
 * order, so results do not depend on which thread ran which block.
 */
final class RowBlocks {
    private static final ExecutorService POOL = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "structlr-rows");
        t.setDaemon(true);
        return t;
    });

    private RowBlocks() {}

    /** The number of blocks of {@code blockRows} rows covering {@code rows} rows. */
    static int count(int rows, int blockRows) {
        return (rows + blockRows - 1) / blockRows;
    }

    static void run(int count, int threads, IntConsumer body) {
        int helpers = Math.min(threads, count) - 1;
        if (helpers <= 0) {
            for (int k = 0; k < count; k++) body.accept(k);
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Runnable worker = () -> {
            for (int k; (k = next.getAndIncrement()) < count; ) body.accept(k);
        };
        Future<?>[] running = new Future<?>[helpers];
        for (int h = 0; h < helpers; h++) running[h] = POOL.submit(worker);
        RuntimeException failure = null;
        try {
            worker.run();
        } catch (RuntimeException e) {
            failure = e;
            next.set(count);                     // the helpers stop after their current block
        }
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (failure == null) failure = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                if (failure == null) failure = new IllegalStateException("interrupted while waiting for row blocks", e);
            }
        }
        if (failure != null) throw failure;
    }
}
