package org.structlr.oracle.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** RowBlocks returns only when no helper is still running a block: after an Error, an exception or an interrupt. */
class RowBlocksTest {
    /** A body whose blocks take a while; counts blocks in progress and blocks begun. */
    static final class Slow {
        final AtomicInteger active = new AtomicInteger(), begun = new AtomicInteger();
        final int failAt;
        final Throwable failure;

        Slow(int failAt, Throwable failure) {
            this.failAt = failAt;
            this.failure = failure;
        }

        void block(int k) {
            active.incrementAndGet();
            begun.incrementAndGet();
            try {
                if (k == failAt) {
                    if (failure instanceof Error e) throw e;
                    throw (RuntimeException) failure;
                }
                long until = System.nanoTime() + 20_000_000L;
                while (System.nanoTime() < until) Thread.onSpinWait();
            } finally {
                active.decrementAndGet();
            }
        }
    }

    @Test
    void anErrorInAnyThreadStopsEveryHelperBeforeReturning() {
        for (int failAt : new int[] {0, 1, 5}) {   // the caller's first block, a helper's first, a later one
            OutOfMemoryError oom = new OutOfMemoryError("test");
            Slow s = new Slow(failAt, oom);
            OutOfMemoryError thrown = assertThrows(OutOfMemoryError.class, () -> RowBlocks.run(200, 4, s::block));
            assertSame(oom, thrown, "the Error itself, not wrapped");
            assertEquals(0, s.active.get(), "a block was still running after run returned (fail at " + failAt + ")");
            int begun = s.begun.get();
            assertTrue(begun < 200, "blocks went on after the failure: " + begun);
            sleep(60);
            assertEquals(begun, s.begun.get(), "a block began after run returned");
        }
        Slow s = new Slow(3, new IllegalArgumentException("bad block"));
        assertEquals("bad block", assertThrows(IllegalArgumentException.class, () -> RowBlocks.run(200, 3, s::block)).getMessage());
        assertEquals(0, s.active.get());
    }

    @Test
    void anInterruptWaitsForTheHelpersAndKeepsTheFlag() throws Exception {
        Slow s = new Slow(-1, null);
        CountDownLatch started = new CountDownLatch(1);
        Throwable[] out = new Throwable[1];
        int[] activeAtReturn = {-1};
        boolean[] flag = new boolean[1];
        Thread caller = new Thread(() -> {
            started.countDown();
            try {
                RowBlocks.run(1000, 4, s::block);
            } catch (Throwable t) {
                out[0] = t;
            }
            activeAtReturn[0] = s.active.get();
            flag[0] = Thread.currentThread().isInterrupted();
        });
        caller.start();
        started.await();
        sleep(50);
        caller.interrupt();
        caller.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(out[0] instanceof IllegalStateException, String.valueOf(out[0]));
        assertEquals(0, activeAtReturn[0], "helpers still running when run returned");
        assertTrue(flag[0], "the interrupt flag is kept");
        assertTrue(s.begun.get() < 1000, "the run stopped early: " + s.begun.get());
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
