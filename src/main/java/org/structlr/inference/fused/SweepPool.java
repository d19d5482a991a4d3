package org.structlr.inference.fused;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * A fixed set of threads that run the parts of one colour pass and then wait. Idle workers block
 * in a queue (they park: no spinning), so on a busy machine a waiting worker costs nothing, unlike
 * OpenMP's spin-waits. The calling thread runs one part itself. One pool per thread count is
 * shared by every engine of the process (daemon threads, never closed).
 */
final class SweepPool {
    private static final ConcurrentHashMap<Integer, SweepPool> SHARED = new ConcurrentHashMap<>();

    private final int threads;
    private final ThreadPoolExecutor workers;

    private SweepPool(int threads) {
        this.threads = threads;
        if (threads == 1) {
            workers = null;
        } else {
            workers = new ThreadPoolExecutor(threads - 1, threads - 1, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "structlr-sweep");
                t.setDaemon(true);
                return t;
            });
        }
    }

    /** The shared pool of {@code threads} threads (the caller counts as one). */
    static SweepPool of(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        return SHARED.computeIfAbsent(threads, SweepPool::new);
    }

    int threads() { return threads; }

    /** Runs {@code part.accept(p)} for p = 0 .. parts-1, parts 1.. on the workers and part 0 here; returns when all are done. */
    void run(int parts, IntConsumer part) {
        if (parts <= 1 || workers == null) {
            for (int p = 0; p < parts; p++) part.accept(p);
            return;
        }
        List<Future<?>> pending = new ArrayList<>(parts - 1);
        for (int p = 1; p < parts; p++) {
            int q = p;
            pending.add(workers.submit(() -> part.accept(q)));
        }
        RuntimeException failure = null;
        try {
            part.accept(0);
        } catch (RuntimeException e) {
            failure = e;
        }
        for (Future<?> f : pending) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a sweep", e);
            } catch (ExecutionException e) {
                if (failure == null) failure = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }
        if (failure != null) throw failure;
    }
}
