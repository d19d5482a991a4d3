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
 *
 * <p>On a failure (an exception or an {@link Error} in any thread) or an interrupt, no new block
 * starts and {@link #run} returns (throws) only after every helper has finished its current one,
 * so nothing writes the caller's results after it returned. An Error is rethrown as itself.
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
            try {
                for (int k; (k = next.getAndIncrement()) < count; ) {
                    if (Thread.currentThread().isInterrupted()) {   // the caller was interrupted: stop everyone
                        next.set(count);
                        break;
                    }
                    body.accept(k);
                }
            } catch (Throwable t) {
                next.set(count);                 // every other thread stops after its current block
                throw t;
            }
        };
        Future<?>[] running = new Future<?>[helpers];
        Throwable failure = null;
        int started = 0;
        try {
            for (; started < helpers; started++) running[started] = POOL.submit(worker);
            worker.run();
        } catch (Throwable t) {                  // Errors too: the helpers must stop before we return
            failure = t;
            next.set(count);
        }
        // Wait for every helper, also when interrupted: returning earlier would leave them writing
        // the caller's block results. They finish their current block only, so the wait is short.
        boolean interrupted = false;
        for (int h = 0; h < started; h++) {
            while (true) {
                try {
                    running[h].get();
                    break;
                } catch (ExecutionException e) {
                    if (failure == null) failure = e.getCause();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    next.set(count);
                }
            }
        }
        if (interrupted || Thread.currentThread().isInterrupted()) {
            Thread.currentThread().interrupt();
            if (failure == null) failure = new IllegalStateException("interrupted while running row blocks");
        }
        if (failure instanceof RuntimeException r) throw r;
        if (failure instanceof Error e) throw e;
        if (failure != null) throw new IllegalStateException(failure);
    }
}
