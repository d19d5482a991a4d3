package org.structlr.inference.fused;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.structlr.graph.GridBatch;

/**
 * How {@link FusedRowSchedule} shares images between threads (the bits themselves are checked
 * against the plain red-black order in {@link FusedGridMessagePassingTest}): a thread that has
 * finished its own images takes the others' last ones, then takes turns with the other thread on
 * its started ones, and every image still gets exactly the sequence of row passes it gets on one
 * thread.
 */
class FusedRowScheduleTest {
    /**
     * Per image, the (colour, row) passes in the order they ran, and the parts that ran them; each
     * pass is checked to see the inputs it sees in the plain order (rows are the unit: a row's
     * pixels have their neighbours in it and the two rows next to it).
     */
    private static class Recorder implements FusedRowSchedule.RowPass {
        final List<List<int[]>> passes = new ArrayList<>();
        final List<java.util.Set<Integer>> ranBy = new ArrayList<>();
        final int slowPart, rows;

        /** {@code images} images of {@code rows} rows each; {@code slowPart} (or -1) is held up at its first pass. */
        Recorder(int images, int rows, int slowPart) {
            this.slowPart = slowPart;
            this.rows = rows;
            for (int k = 0; k < images; k++) {
                passes.add(new ArrayList<>());
                ranBy.add(new java.util.HashSet<>());
            }
        }

        /** Counted down when the slow thread has claimed its first image; the other thread waits for it. */
        final java.util.concurrent.CountDownLatch slowStarted = new java.util.concurrent.CountDownLatch(1);
        boolean othersWaited;

        @Override
        public void run(int part, int c, int image, int row) {
            try {
                if (part == slowPart && slowStarted.getCount() > 0) {
                    slowStarted.countDown();
                    Thread.sleep(300);          // this thread is held up at the start of its first image
                } else if (slowPart >= 0 && part != slowPart && !othersWaited) {
                    othersWaited = true;
                    assertTrue(slowStarted.await(10, java.util.concurrent.TimeUnit.SECONDS), "the slow thread never started");
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            synchronized (this) {
                passes.get(image).add(new int[] {c, row});
                ranBy.get(image).add(part);
                int[][] n = done.computeIfAbsent(image, k -> new int[2][rows]);
                // the plain order's inputs: colour 0 of row r reads colour 1 of rows r-1..r+1 before
                // this sweep, colour 1 reads colour 0 of those rows after it
                for (int r = Math.max(0, row - 1); r <= Math.min(rows - 1, row + 1); r++) {
                    if (c == 0) assertEquals(n[0][row], n[1][r], "image " + image + ": colour 0 of row " + row + " after colour 1 of row " + r);
                    else assertEquals(n[1][row] + 1, n[0][r], "image " + image + ": colour 1 of row " + row + " before colour 0 of row " + r);
                }
                n[c][row]++;
            }
        }

        /** Per image, how many times each colour of each row has run. */
        private final java.util.Map<Integer, int[][]> done = new java.util.HashMap<>();
    }

    @Test
    void aFreeThreadTakesTheImagesOfASlowOneAndEachImageKeepsItsOrder() {
        GridBatch batch = GridBatch.uniform(8, 5, 4);
        int[] rows = new int[8], height = new int[8];
        java.util.Arrays.fill(rows, 5);
        java.util.Arrays.fill(height, 1);
        FusedRowSchedule schedule = new FusedRowSchedule(batch, rows, height, 2);
        assertFalse(schedule.cuts);
        assertEquals(List.of(0, 1, 2, 3), schedule.parts.get(0).stream().map(FusedRowSchedule.Block::image).toList());

        int sweeps = 3;
        int[] depth = {1, 2, 3, 1, 2, 3, 1, 2};
        Recorder alone = new Recorder(8, 5, -1), shared = new Recorder(8, 5, 1);
        schedule.iterate(SweepPool.of(1), sweeps, depth, alone);
        new FusedRowSchedule(batch, rows, height, 2).iterate(SweepPool.of(2), sweeps, depth, shared);   // its first call, like alone's
        int taken = 0;
        for (int k = 0; k < 8; k++) {
            List<int[]> a = alone.passes.get(k), b = shared.passes.get(k);
            assertEquals(a.size(), b.size(), "image " + k);
            for (int i = 0; i < a.size(); i++) assertEquals(java.util.Arrays.toString(a.get(i)), java.util.Arrays.toString(b.get(i)), "image " + k + " pass " + i);
            assertEquals(1, shared.ranBy.get(k).size(), "image " + k + " ran on one thread");
            if (k >= 4 && shared.ranBy.get(k).contains(0)) taken++;
        }
        assertEquals(2 * sweeps * 5, alone.passes.get(0).size(), "every colour of every row, every sweep");
        assertTrue(taken >= 2, "the free thread took " + taken + " of the slow thread's 4 images");
        assertTrue(shared.ranBy.get(4).contains(1), "the slow thread started on its own first image");
    }

    /**
     * Several sweeps per call: a thread that has finished its own images runs chunks of the images
     * another (slow) thread has started, so the two end together, and every image still gets the
     * passes of one thread in the same order.
     */
    @Test
    void aFreeThreadSharesTheStartedImagesOfASlowOne() {
        GridBatch batch = GridBatch.uniform(4, 2, 4);
        int[] rows = {2, 2, 2, 2}, height = {1, 1, 1, 1};
        FusedRowSchedule schedule = new FusedRowSchedule(batch, rows, height, 2);
        assertEquals(List.of(2, 3), schedule.parts.get(1).stream().map(FusedRowSchedule.Block::image).toList());
        int sweeps = 6;
        int[] depth = {1, 1, 1, 1};
        java.util.concurrent.CountDownLatch bothStarted = new java.util.concurrent.CountDownLatch(1);
        Recorder alone = new Recorder(4, 2, -1), shared = new Recorder(4, 2, -1) {
            @Override
            public void run(int part, int c, int image, int row) {
                try {
                    if (part == 1) {
                        if (image == 3) bothStarted.countDown();   // the slow thread has started both its images
                        Thread.sleep(10);
                    } else {
                        assertTrue(bothStarted.await(10, java.util.concurrent.TimeUnit.SECONDS), "the slow thread never started");
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                super.run(part, c, image, row);
            }
        };
        schedule.iterate(SweepPool.of(1), sweeps, depth, alone);
        new FusedRowSchedule(batch, rows, height, 2).iterate(SweepPool.of(2), sweeps, depth, shared);
        for (int k = 0; k < 4; k++) {
            List<int[]> a = alone.passes.get(k), b = shared.passes.get(k);
            assertEquals(2 * sweeps * 2, a.size(), "every colour of every row, every sweep");
            assertEquals(a.size(), b.size(), "image " + k);
            for (int i = 0; i < a.size(); i++) assertEquals(java.util.Arrays.toString(a.get(i)), java.util.Arrays.toString(b.get(i)), "image " + k + " pass " + i);
        }
        assertEquals(java.util.Set.of(0), shared.ranBy.get(0), "the fast thread's own images");
        assertEquals(java.util.Set.of(0), shared.ranBy.get(1), "the fast thread's own images");
        assertTrue(shared.ranBy.get(2).size() == 2 || shared.ranBy.get(3).size() == 2,
                "the fast thread ran chunks of the slow one's started images: " + shared.ranBy);
    }

    /**
     * One sweep per call: a thread that has finished its own image takes rows from the bottom of
     * the image another (slow) thread is sweeping from the top; every pass still sees the inputs of
     * the plain order (checked by the recorder) and every row runs once per sweep.
     */
    @Test
    void aFreeThreadSharesTheSweepOfASlowOne() {
        int h = 12, sweeps = 2;
        GridBatch batch = GridBatch.uniform(2, h, 4);
        int[] rows = {h, h}, height = {1, 1};
        FusedRowSchedule schedule = new FusedRowSchedule(batch, rows, height, 2);
        assertEquals(List.of(1), schedule.parts.get(1).stream().map(FusedRowSchedule.Block::image).toList());
        java.util.concurrent.CountDownLatch slowStarted = new java.util.concurrent.CountDownLatch(1);
        Recorder shared = new Recorder(2, h, -1) {
            @Override
            public void run(int part, int c, int image, int row) {
                try {
                    if (part == 1) {
                        slowStarted.countDown();
                        Thread.sleep(5);
                    } else {
                        assertTrue(slowStarted.await(10, java.util.concurrent.TimeUnit.SECONDS), "the slow thread never started");
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                super.run(part, c, image, row);
            }
        };
        schedule.iterate(SweepPool.of(2), sweeps, new int[] {1, 1}, shared);
        for (int k = 0; k < 2; k++) {
            for (int c = 0; c < 2; c++) {
                for (int r = 0; r < h; r++) {
                    int cc = c, rr = r;
                    assertEquals(sweeps, shared.passes.get(k).stream().filter(x -> x[0] == cc && x[1] == rr).count(), "image " + k + " colour " + c + " row " + r);
                }
            }
        }
        assertEquals(java.util.Set.of(0), shared.ranBy.get(0), "the fast thread's own image");
        assertEquals(java.util.Set.of(0, 1), shared.ranBy.get(1), "the fast thread took rows of the slow one's image");
    }

    /**
     * Calls alternate between downward and upward (each image from its bottom row, so that a call
     * starts where the one before ended): every pass still sees the inputs of the plain order
     * (checked by the recorder), one sweep at a time and several at once.
     */
    @Test
    void callsAlternateDownwardAndUpward() {
        int h = 9;
        GridBatch batch = GridBatch.uniform(4, h, 4);
        int[] rows = {h, h, h, h}, height = {1, 1, 1, 1};
        for (int threads = 1; threads <= 2; threads++) {
            FusedRowSchedule schedule = new FusedRowSchedule(batch, rows, height, threads);
            assertFalse(schedule.cuts);
            Recorder r = new Recorder(4, h, -1);
            int[] sweeps = {1, 1, 3, 2, 1, 4}, starts = new int[sweeps.length];
            int total = 0;
            for (int call = 0; call < sweeps.length; call++) {
                int before = r.passes.get(0).size();
                schedule.iterate(SweepPool.of(threads), sweeps[call], new int[] {2, 2, 2, 2}, r);
                starts[call] = r.passes.get(0).get(before)[1];
                total += sweeps[call];
            }
            assertEquals("[0, 8, 0, 8, 0, 8]", java.util.Arrays.toString(starts), threads + " threads: the first row of image 0 in each call");
            for (int k = 0; k < 4; k++) assertEquals(2 * h * total, r.passes.get(k).size(), "image " + k + ", every colour of every row, every sweep");
        }
    }
}
