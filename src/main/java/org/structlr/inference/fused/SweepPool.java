package org.structlr.inference.fused;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * A fixed set of threads that run the parts of one piece of sweep work and then wait: the calling
 * thread runs part 0 itself, worker w runs part w (parts beyond the thread count go round again).
 * One pool per thread count is shared by every engine of the process (daemon threads, never
 * closed).
 *
 * <h2>Waiting: spin briefly, then park</h2>
 * A sweep of a small batch takes about a millisecond, and waking a parked thread costs tens of
 * microseconds on a virtual machine (an inter-processor interrupt through the hypervisor), twice
 * per hand-off (wake the worker, wake the caller when the worker finishes last). So a thread that
 * waits (a worker for the next job, the caller for the workers) first spins for up to
 * {@link #SPIN_NANOS}, yielding its core to any other runnable thread after the first few
 * microseconds, and only then parks. On an idle machine the hand-off costs well under a
 * microsecond; on a busy one a waiter gives its core away almost at once (it yields on every
 * turn of the spin), unlike OpenMP's long spin-waits (ND4J's native threads made a 2-thread run
 * 2.5x slower beside one other process). The spin lasts half a millisecond: the threads of one
 * sweep may finish a few per cent of it apart (work is shared by whole images), on the bench's
 * 2 ms sweeps more than the former 50 us: the first to finish then parked and the next hand-off
 * paid a wake-up ({@link #parks} counts them). Measured idle at 25 sweeps per call, the 2-thread
 * ratio's median went from 1.79x to 1.91x (docs/results.md, "Where the second core's time goes"). Written by
 * hand because no JDK executor spins before parking, and the JDK's own hand-offs (a queue and a
 * Future per part) park at once.
 *
 * <h2>Failure</h2>
 * {@link #run} returns, or throws, only after every part has finished, so no worker is still
 * writing engine state when the caller sees an exception: a part that throws (a RuntimeException
 * or an Error) does not stop the others; the caller rethrows the failure of the lowest part. An
 * interrupt of the caller while it waits does not cut the wait short: it is kept, and when all
 * parts are done run throws an IllegalStateException with the interrupt flag set.
 *
 * <p>Parts must not call {@link #run} themselves. Two callers at once do not queue: one whose pool
 * is busy with another caller's work runs all its parts itself (the parts are independent, so the
 * result is the same).
 */
final class SweepPool {
    private static final ConcurrentHashMap<Integer, SweepPool> SHARED = new ConcurrentHashMap<>();
    /** How long a waiting thread spins before it parks, and after how long it yields while spinning. */
    static final long SPIN_NANOS = 500_000, YIELD_AFTER_NANOS = 5_000;
    /** Times a waiting thread of any pool parked (diagnostics: {@code FusedSpeedCheck} prints it per call). */
    private static final java.util.concurrent.atomic.LongAdder PARKS = new java.util.concurrent.atomic.LongAdder();
    /**
     * Where a job's thread time goes (diagnostics, summed over the jobs of every pool that used
     * more than one thread; {@code FusedSpeedCheck} prints them): [0] jobs, [1] thread-nanoseconds
     * from the job's start to its last part's end (threads x span), [2] of those, the time threads
     * sat idle after finishing their parts while another still ran (imbalance), [3] the time
     * workers took to start after the caller handed the job out (hand-off), [4] the CPU time the
     * threads spent in their parts (only with {@code -Dstructlr.fused.timing=true}: a system call
     * per part). Added by the caller after the job, a few clock reads per job.
     */
    private static final java.util.concurrent.atomic.LongAdder[] TIMING = {
            new java.util.concurrent.atomic.LongAdder(), new java.util.concurrent.atomic.LongAdder(),
            new java.util.concurrent.atomic.LongAdder(), new java.util.concurrent.atomic.LongAdder(),
            new java.util.concurrent.atomic.LongAdder()};
    private static final boolean CPU_TIMING = Boolean.getBoolean("structlr.fused.timing");
    private static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    private final int threads;
    private final Worker[] workers;
    /** One caller at a time owns the workers. */
    private final ReentrantLock owner = new ReentrantLock();

    // The current job, written by the caller before it bumps a worker's generation (volatile: publishes these).
    private IntConsumer job;
    private int jobParts;
    private final Throwable[] failures;
    /** Workers still running the current job; the last one to finish unparks the caller if it parked. */
    private final AtomicInteger pending = new AtomicInteger();
    private volatile Thread parkedCaller;

    private SweepPool(int threads) {
        this.threads = threads;
        this.failures = new Throwable[threads];
        this.workers = new Worker[threads - 1];
        for (int w = 0; w < workers.length; w++) {
            workers[w] = new Worker(w + 1);
            workers[w].thread.start();
        }
    }

    /** The shared pool of {@code threads} threads (the caller counts as one). */
    static SweepPool of(int threads) {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        return SHARED.computeIfAbsent(threads, SweepPool::new);
    }

    int threads() { return threads; }

    /** How many times a waiting thread (caller or worker, any pool) has parked since the process started. */
    static long parks() { return PARKS.sum(); }

    /** {jobs, thread-ns of jobs, idle thread-ns at their ends, hand-off ns} since the process started (see {@code TIMING}). */
    static long[] timing() {
        long[] t = new long[TIMING.length];
        for (int i = 0; i < t.length; i++) t[i] = TIMING[i].sum();
        return t;
    }

    /**
     * Runs {@code part.accept(p)} for p = 0 .. parts-1, part p on thread {@code p % threads} (0 is
     * the caller), and returns when all are done; see the class comment for failures and interrupts.
     */
    void run(int parts, IntConsumer part) {
        if (parts <= 1 || threads == 1 || !owner.tryLock()) {
            for (int p = 0; p < parts; p++) part.accept(p);
            return;
        }
        try {
            int helpers = Math.min(parts, threads) - 1;
            job = part;
            jobParts = parts;
            java.util.Arrays.fill(failures, null);
            pending.set(helpers);
            long start = System.nanoTime();
            for (int w = 0; w < helpers; w++) workers[w].start();
            long cpu0 = CPU_TIMING ? CPU.getCurrentThreadCpuTime() : 0;
            failures[0] = runParts(0, parts, threads, part);
            long callerEnd = System.nanoTime();
            if (CPU_TIMING) TIMING[4].add(CPU.getCurrentThreadCpuTime() - cpu0);
            awaitWorkers();
            job = null;
            long last = callerEnd, idle = 0, lag = 0;
            for (int w = 0; w < helpers; w++) last = Math.max(last, workers[w].endedAt);
            idle += last - callerEnd;
            for (int w = 0; w < helpers; w++) {
                idle += last - workers[w].endedAt;
                lag += Math.max(0, workers[w].startedAt - start);
            }
            TIMING[0].increment();
            TIMING[1].add((last - start) * (helpers + 1));
            TIMING[2].add(idle);
            TIMING[3].add(lag);
            for (int w = 0; w < helpers; w++) TIMING[4].add(workers[w].cpuNanos);
            Throwable first = null;
            for (Throwable f : failures) if (first == null) first = f;
            if (first instanceof RuntimeException r) throw r;
            if (first instanceof Error e) throw e;
            if (first != null) throw new IllegalStateException(first);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a sweep (the sweep was finished)");
            }
        } finally {
            owner.unlock();
        }
    }

    /** Parts first, first + step, ... below parts; the first failure, or null (later parts still run). */
    private static Throwable runParts(int first, int parts, int step, IntConsumer part) {
        Throwable failure = null;
        for (int p = first; p < parts; p += step) {
            try {
                part.accept(p);
            } catch (Throwable t) {
                if (failure == null) failure = t;
            }
        }
        return failure;
    }

    /** Spins, then parks until {@code pending} is 0; an interrupt does not end the wait (it stays set). */
    private void awaitWorkers() {
        long t0 = System.nanoTime();
        for (long spun; pending.get() != 0; ) {
            spun = System.nanoTime() - t0;
            if (spun < YIELD_AFTER_NANOS) {
                Thread.onSpinWait();
            } else if (spun < SPIN_NANOS) {
                Thread.yield();
            } else {
                parkedCaller = Thread.currentThread();
                PARKS.increment();
                boolean interrupted = false;
                while (pending.get() != 0) {
                    LockSupport.park(this);
                    interrupted |= Thread.interrupted();
                }
                parkedCaller = null;
                if (interrupted) Thread.currentThread().interrupt();
            }
        }
    }

    /** One worker thread: waits for its generation to move, runs its parts of the job, reports. */
    private final class Worker implements Runnable {
        final int index;
        final Thread thread;
        /** Bumped by the caller for each job this worker takes part in. */
        private volatile long generation;
        private volatile boolean parked;
        /** When this worker started and finished its parts of the current job (published by {@code pending}). */
        private long startedAt, endedAt, cpuNanos;

        Worker(int index) {
            this.index = index;
            this.thread = new Thread(this, "structlr-sweep-" + index);
            thread.setDaemon(true);
        }

        /** Called by the owning caller after it set the job. */
        void start() {
            generation++;                 // only the caller that holds the owner lock writes it
            if (parked) LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            long seen = 0;
            while (true) {
                seen = awaitJob(seen);
                startedAt = System.nanoTime();
                long cpu0 = CPU_TIMING ? CPU.getCurrentThreadCpuTime() : 0;
                failures[index] = runParts(index, jobParts, threads, job);
                cpuNanos = CPU_TIMING ? CPU.getCurrentThreadCpuTime() - cpu0 : 0;
                endedAt = System.nanoTime();
                if (pending.decrementAndGet() == 0) {
                    Thread caller = parkedCaller;
                    if (caller != null) LockSupport.unpark(caller);
                }
            }
        }

        private long awaitJob(long seen) {
            long t0 = System.nanoTime();
            for (long spun; generation == seen; ) {
                spun = System.nanoTime() - t0;
                if (spun < YIELD_AFTER_NANOS) {
                    Thread.onSpinWait();
                } else if (spun < SPIN_NANOS) {
                    Thread.yield();
                } else {
                    parked = true;
                    PARKS.increment();
                    while (generation == seen) LockSupport.park(this);
                    parked = false;
                }
            }
            return generation;
        }
    }
}
