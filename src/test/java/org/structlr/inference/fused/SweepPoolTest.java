package org.structlr.inference.fused;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The sweep pool runs every part exactly once, and never returns (or throws) while a part is still
 * running: not when a part fails with an Error or a RuntimeException, not when the caller is
 * interrupted. Its workers survive failures.
 */
class SweepPoolTest {
    /** A part that is still running when the pool returns would leave this false. */
    private static void slowPart(CountDownLatch go, AtomicBoolean finished) {
        try {
            assertTrue(go.await(10, TimeUnit.SECONDS), "the other part never started");
            Thread.sleep(300);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        finished.set(true);
    }

    @Test
    void everyPartRunsOnceAndOnTheRightThread() {
        for (int threads = 1; threads <= 3; threads++) {
            SweepPool pool = SweepPool.of(threads);
            for (int parts = 0; parts <= 7; parts++) {
                for (int rep = 0; rep < 200; rep++) {
                    AtomicIntegerArray runs = new AtomicIntegerArray(parts);
                    String[] names = new String[parts];
                    pool.run(parts, p -> {
                        runs.incrementAndGet(p);
                        names[p] = Thread.currentThread().getName();
                    });
                    int[] got = new int[parts], want = new int[parts];
                    for (int p = 0; p < parts; p++) {
                        got[p] = runs.get(p);
                        want[p] = 1;
                    }
                    assertArrayEquals(want, got, threads + " threads, " + parts + " parts");
                    if (parts > 0) assertEquals(Thread.currentThread().getName(), names[0], "part 0 runs on the caller");
                    for (int p = 0; p < parts; p++) {
                        if (threads > 1 && parts > 1 && p % threads != 0) {
                            assertEquals("structlr-sweep-" + (p % threads), names[p], "part " + p + " of " + parts);
                        }
                    }
                }
            }
        }
    }

    @Test
    void anErrorInThePartOfTheCallerWaitsForTheWorkers() {
        SweepPool pool = SweepPool.of(2);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        AssertionError thrown = new AssertionError("part 0 failed");
        AssertionError got = assertThrows(AssertionError.class, () -> pool.run(2, p -> {
            if (p == 1) {
                slowPart(go, finished);
            } else {
                go.countDown();
                throw thrown;
            }
        }));
        assertSame(thrown, got);
        assertTrue(finished.get(), "run threw while part 1 was still running");
        stillWorks(pool);
    }

    @Test
    void aFailingWorkerIsRethrownAsItIsAfterTheOtherParts() {
        SweepPool pool = SweepPool.of(3);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        OutOfMemoryError error = new OutOfMemoryError("part 1 failed");
        Throwable got = assertThrows(OutOfMemoryError.class, () -> pool.run(3, p -> {
            if (p == 1) {
                go.countDown();
                throw error;
            }
            if (p == 2) {
                slowPart(go, finished);
                throw new IllegalArgumentException("part 2 failed too");
            }
        }));
        assertSame(error, got, "the failure of the lowest part, not wrapped");
        assertTrue(finished.get(), "run threw while part 2 was still running");
        stillWorks(pool);
    }

    @Test
    void anInterruptedCallerWaitsForTheWorkersThenSaysSo() throws InterruptedException {
        SweepPool pool = SweepPool.of(2);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean(), flagKept = new AtomicBoolean();
        Throwable[] thrown = new Throwable[1];
        Thread caller = new Thread(() -> {
            try {
                pool.run(2, p -> {
                    if (p == 1) slowPart(go, finished);
                });
            } catch (Throwable t) {
                thrown[0] = t;
                flagKept.set(Thread.currentThread().isInterrupted());
            }
        });
        caller.start();
        Thread.sleep(50);          // the caller is waiting for part 1 (parked after its short spin)
        caller.interrupt();
        go.countDown();
        caller.join(10_000);
        assertTrue(thrown[0] instanceof IllegalStateException, "got " + thrown[0]);
        assertTrue(finished.get(), "run returned while part 1 was still running");
        assertTrue(flagKept.get(), "the interrupt flag is kept");
        stillWorks(pool);
    }

    @Test
    void twoCallersAtOnceBothGetAllTheirParts() throws InterruptedException {
        SweepPool pool = SweepPool.of(2);
        int rounds = 2000;
        AtomicIntegerArray[] runs = {new AtomicIntegerArray(4), new AtomicIntegerArray(4)};
        Thread[] callers = new Thread[2];
        Throwable[] failed = new Throwable[2];
        for (int c = 0; c < 2; c++) {
            int me = c;
            callers[c] = new Thread(() -> {
                try {
                    for (int r = 0; r < rounds; r++) pool.run(4, p -> runs[me].incrementAndGet(p));
                } catch (Throwable t) {
                    failed[me] = t;
                }
            });
            callers[c].start();
        }
        for (Thread t : callers) t.join(60_000);
        for (int c = 0; c < 2; c++) {
            assertEquals(null, failed[c]);
            for (int p = 0; p < 4; p++) assertEquals(rounds, runs[c].get(p), "caller " + c + " part " + p);
        }
    }

    private static void stillWorks(SweepPool pool) {
        AtomicIntegerArray runs = new AtomicIntegerArray(pool.threads());
        pool.run(pool.threads(), runs::incrementAndGet);
        for (int p = 0; p < pool.threads(); p++) assertEquals(1, runs.get(p), "part " + p + " after a failure");
    }
}
