package org.structlr.inference.fused;

import java.util.ArrayList;
import java.util.List;
import org.structlr.graph.GridBatch;

/**
 * The order in which one red-black sweep visits the pixel rows, so that both colours of a row are
 * updated while its data is still in cache, with exactly the result of the plain order (all of
 * colour 0, then all of colour 1), and how the rows are shared between threads.
 *
 * <p>Below, "row" means a strip of the layout ({@link FusedGridLayout#stripRows}: one pixel row, or
 * a few so that strips start on whole vectors): a pixel of a strip has its neighbours in the strip
 * and the two next to it, which is all the argument needs.
 *
 * <h2>Why the result is the same</h2>
 * Colour 0 of row r reads colour 1's messages of rows r-1, r, r+1 as they were before the sweep;
 * colour 1 of row r reads colour 0's messages of rows r-1, r, r+1 as they are after colour 0's
 * half. So within a block of rows the wavefront
 * <pre>
 *   for r in block: colour 0 of row r, then colour 1 of row r-1
 * </pre>
 * gives every pixel the inputs it gets in the plain order: when colour 1 of row r-1 runs, colour 0
 * of rows up to r is done; when colour 0 of row r runs, colour 1 is done only up to row r-2.
 * Each row's tables and messages are read by both colours within two steps, so a sweep streams
 * them from memory once instead of twice (the point for many labels, where it is memory-bound).
 *
 * <h2>Several sweeps at once</h2>
 * The same argument carries over to sweeps: with sweep sigma running two rows behind sweep
 * sigma - 1,
 * <pre>
 *   step r: for sigma = 0 .. T-1: colour 0 of row r - 2 sigma, then colour 1 of row r - 2 sigma - 1
 * </pre>
 * every operation again sees exactly what it sees in T plain sweeps (colour 0 of sweep sigma + 1
 * at row x needs colour 1 of sweep sigma done up to row x + 1, which ran one step earlier in this
 * step's order, and colour 1 of sweep sigma at row y must read colour 0 before sweep sigma + 1
 * rewrites rows y - 1 .. y + 1, which it does at least one step later). So an image whose 2T + 2
 * rows in flight fit the L2 cache is read from memory once per T sweeps instead of once per sweep.
 * This is used when no image is cut (images are independent, so then each thread runs all the
 * sweeps of its images without waiting for the others).
 *
 * <h2>Threads</h2>
 * Images are cut into blocks of rows, contiguous per thread, so each thread owns its images' data
 * (no cache line goes back and forth between the cores, unlike colour passes split by position).
 * Without a cut a call hands work to the threads once, whatever the number of sweeps, and the
 * threads then claim chunks (the up to {@code depth} sweeps an image runs at once) one at a time
 * ({@link #next}): each thread its own images, two at a time in turn; then the others' images not
 * yet started; then any image not being run; and last, rows from the bottom of a one-sweep chunk
 * another thread is running from the top ({@link #shareSweep}). So the threads end a call
 * within one chunk of each other (about a strip for one-sweep chunks; a thread slowed by another
 * process is helped), while each image
 * still gets exactly the row passes of the plain order: its chunks run one after another, and
 * the two halves of a shared sweep meet as at a cut (below). A cut inside
 * an image couples two blocks: colour 1 of the rows on either side of the cut needs colour 0 of the
 * other block. Those (at most two rows per block) wait for a second phase after all threads have
 * finished their blocks, so a batch with a cut costs two hand-offs per sweep. Pixels of one colour
 * share no edge, so neither the cuts nor the thread count change a bit.
 */
final class FusedRowSchedule {
    /** The star update of colour c over row (strip) r of image k, run by part p (p's scratch may be reused). */
    interface RowPass {
        void run(int part, int c, int image, int row);
    }

    /** Rows (strips) [r0, r1) of one image; cutTop / cutBottom: the neighbouring rows belong to another block. */
    record Block(int image, int r0, int r1, boolean cutTop, boolean cutBottom) {}

    /** Per thread, its blocks in order. */
    final List<List<Block>> parts;
    /** Whether some image is cut between two blocks. */
    final boolean cuts;

    /** Rows (strips) per image. */
    private final int[] rows;
    /** Every part's blocks, part by part; part p's are {@code all[first[p] .. first[p + 1])}. */
    private final Block[] all;
    private final int[] first;
    /**
     * Without cuts, per block of {@code all} in the current call (guarded by {@code left}): sweeps
     * still to run, whether a thread is running a chunk of it, whether one has, and the sweeps of
     * its current chunk.
     */
    private final int[] left, chunk;
    private final boolean[] held, started;
    /** Per block, while a one-sweep chunk of it runs: its free rows, (front << 32) | back, and how many threads run it (1 or 2; guarded by {@code left}). */
    private final java.util.concurrent.atomic.AtomicLong[] rowClaims;
    private final int[] runners;
    /**
     * Whether the current call runs upward: each thread its blocks from the last and each block
     * from its bottom row. Calls alternate, so a call starts with the rows the one before ended
     * with, still in the thread's cache (a thread's images rarely fit its L2 whole). Upward is the
     * mirror image of the plain order: each pass reads the same inputs, so the bits are the same.
     */
    private boolean upward = true;   // the first call runs downward

    /**
     * Rows are dealt to {@code threads} parts of about equal pixel count, in image order; an image
     * is cut only where a part ends inside it. Image k has {@code rowsOf[k]} rows (strips) of
     * {@code rowHeight[k]} pixel rows (the last one may be lower).
     */
    FusedRowSchedule(GridBatch batch, int[] rowsOf, int[] rowHeight, int threads) {
        rows = rowsOf.clone();
        long total = 0;
        for (int k = 0; k < batch.count(); k++) total += (long) batch.height(k) * batch.width(k);
        List<List<Block>> ps = new ArrayList<>();
        List<Block> current = new ArrayList<>();
        long done = 0;
        int part = 0;
        for (int k = 0; k < batch.count(); k++) {
            int h = rows[k], w = batch.width(k), r0 = 0;
            for (int r = 0; r < h; r++) {
                done += (long) w * (Math.min(batch.height(k), (r + 1) * rowHeight[k]) - r * rowHeight[k]);
                // the part ends after this row when it has its share (and is not the last part)
                boolean end = part < threads - 1 && done * threads >= total * (part + 1);
                if (end || r == h - 1) {
                    current.add(new Block(k, r0, r + 1, r0 > 0, r + 1 < h));
                    r0 = r + 1;
                }
                if (end) {
                    ps.add(current);
                    current = new ArrayList<>();
                    part++;
                }
            }
        }
        if (!current.isEmpty()) ps.add(current);
        parts = List.copyOf(ps);
        cuts = parts.stream().flatMap(List::stream).anyMatch(b -> b.cutTop() || b.cutBottom());
        all = parts.stream().flatMap(List::stream).toArray(Block[]::new);
        first = new int[parts.size() + 1];
        for (int p = 0; p < parts.size(); p++) first[p + 1] = first[p] + parts.get(p).size();
        left = new int[all.length];
        chunk = new int[all.length];
        held = new boolean[all.length];
        started = new boolean[all.length];
        runners = new int[all.length];
        rowClaims = new java.util.concurrent.atomic.AtomicLong[all.length];
        for (int b = 0; b < all.length; b++) rowClaims[b] = new java.util.concurrent.atomic.AtomicLong();
    }

    /**
     * {@code sweeps} sweeps, the same bits as that many plain sweeps. Without cuts each image runs
     * up to {@code depth[image]} sweeps at once (a chunk); with cuts one sweep at a time.
     */
    void iterate(SweepPool pool, int sweeps, int[] depth, RowPass pass) {
        if (cuts) {
            for (int s = 0; s < sweeps; s++) sweep(pool, pass);
            return;
        }
        if (sweeps == 0) return;
        boolean up;
        synchronized (left) {
            java.util.Arrays.fill(left, sweeps);
            java.util.Arrays.fill(held, false);
            java.util.Arrays.fill(started, false);
            up = upward = !upward;
        }
        pool.run(parts.size(), p -> {
            for (int b = -1, ran = 0; (b = next(p, b, ran, depth)) >= 0; ) {
                if (b >= all.length) {              // helping another thread with its one-sweep chunk
                    b -= all.length;
                    ran = shareSweep(p, b, false, up, pass) ? 1 : 0;
                } else if (chunk[b] == 1) {
                    ran = shareSweep(p, b, true, up, pass) ? 1 : 0;
                } else {
                    severalSweeps(p, all[b], chunk[b], up, pass);
                    ran = chunk[b];
                }
            }
        });
    }

    /**
     * Part p's next chunk, after it finished {@code ran} sweeps of block {@code prev} (0: nothing
     * to report): the block, its chunk in {@code chunk[block]}; or {@code all.length} + a block
     * whose one-sweep chunk it is to share with the thread running it; or -1 when nothing is left
     * that it could run. Preference, so that each thread keeps its images in its own cache and yet
     * the threads end together:
     * <ol>
     *   <li>its own blocks in order, each to its end (the first one not finished and not being
     *       run); its last two in turn, the one with the most sweeps left (the first on a tie), so
     *       that a thread that is done early finds two it can share;</li>
     *   <li>another part's blocks not yet started, from the back (images cached by nobody);</li>
     *   <li>any block not being run, the one with the most sweeps left (the one it just ran on a
     *       tie);</li>
     *   <li>a one-sweep chunk another thread is running with at least two rows not yet taken: it
     *       takes rows from the bottom ({@link #shareSweep}).</li>
     * </ol>
     * A block's chunks still run one after another in the plain sweep order, whatever thread runs
     * each (the lock orders them), so nothing changes but who computes them.
     */
    private int next(int p, int prev, int ran, int[] depth) {
        synchronized (left) {
            if (ran > 0) {
                left[prev] -= ran;
                held[prev] = false;
            }
            int pick = -1, unfinished = 0;
            for (int b = first[p]; b < first[p + 1]; b++) if (left[b] > 0) unfinished++;
            for (int i = 0; i < first[p + 1] - first[p]; i++) {
                int b = upward ? first[p + 1] - 1 - i : first[p] + i;
                if (left[b] == 0 || held[b]) continue;
                if (pick < 0 || (unfinished <= 2 && left[b] > left[pick])) pick = b;
                if (unfinished > 2) break;
            }
            for (int k = 1; pick < 0 && k < parts.size(); k++) {
                int q = (p + k) % parts.size();
                for (int i = 0; pick < 0 && i < first[q + 1] - first[q]; i++) {
                    int b = upward ? first[q] + i : first[q + 1] - 1 - i;
                    if (!started[b]) pick = b;
                }
            }
            if (pick < 0) {
                for (int b = 0; b < all.length; b++) {
                    if (held[b] || left[b] == 0) continue;
                    if (pick < 0 || left[b] > left[pick] || (left[b] == left[pick] && b == prev)) pick = b;
                }
            }
            if (pick < 0) {
                for (int b = 0; b < all.length; b++) {
                    long v = rowClaims[b].get();
                    if (held[b] && chunk[b] == 1 && runners[b] == 1 && (int) v - (int) (v >>> 32) >= 2) {
                        runners[b] = 2;
                        return all.length + b;
                    }
                }
                return -1;
            }
            held[pick] = true;
            started[pick] = true;
            chunk[pick] = Math.max(1, Math.min(depth[all[pick].image()], left[pick]));
            if (chunk[pick] == 1) {
                rowClaims[pick].set(all[pick].r1());     // rows [0, r1) free: front 0, back r1
                runners[pick] = 1;
            }
            return pick;
        }
    }

    /**
     * One sweep of block b (a whole image), shared by the thread that picked it ({@code owner}),
     * taking rows from the top, and at most one helper, taking rows from the bottom. The owner runs
     * "colour 0 of row r, then colour 1 of row r - 1" and the helper "colour 0 of row r, then
     * colour 1 of row r + 1", so each sees exactly the inputs of the plain order (the argument of
     * the class comment, run upwards for the helper). Where they meet, rows s - 1 (the owner's
     * last) and s (the helper's last) need colour 0 of the other's rows: their colour 1 waits for
     * whichever of the two finishes last (as at a cut). Without a helper this is the wavefront.
     * Returns whether this thread finished the sweep (it then reports it to {@link #next}).
     */
    private boolean shareSweep(int p, int b, boolean owner, boolean up, RowPass pass) {
        int k = all[b].image(), h = all[b].r1();
        java.util.concurrent.atomic.AtomicLong claims = rowClaims[b];
        // x counts rows in this call's direction: row x, or row h - 1 - x in an upward call
        if (owner) {
            int last = -1;
            for (int x; (x = claimRow(claims, true)) >= 0; last = x) {
                pass.run(p, 0, k, row(x, h, up));
                if (x > 0) pass.run(p, 1, k, row(x - 1, h, up));
            }
            if (last == h - 1) pass.run(p, 1, k, row(h - 1, h, up));      // the helper took no row
        } else {
            int last = h;
            for (int x; (x = claimRow(claims, false)) >= 0; last = x) {
                pass.run(p, 0, k, row(x, h, up));
                if (x + 1 < h) pass.run(p, 1, k, row(x + 1, h, up));
            }
            if (last == 0) pass.run(p, 1, k, row(0, h, up));              // the owner took no row
        }
        synchronized (left) {
            if (--runners[b] > 0) return false;                // the other one finishes the sweep
        }
        int s = (int) claims.get();                           // front = back: where they met
        if (s > 0 && s < h) {
            pass.run(p, 1, k, row(s - 1, h, up));
            pass.run(p, 1, k, row(s, h, up));
        }
        return true;
    }

    /** Row x of h in a call's direction: x downward, h - 1 - x upward. */
    private static int row(int x, int h, boolean up) {
        return up ? h - 1 - x : x;
    }

    /** The next free row of a shared sweep, the front one for the owner, the back one for a helper; -1 when none is left. {@code c}: (front << 32) | back. */
    private static int claimRow(java.util.concurrent.atomic.AtomicLong c, boolean owner) {
        for (long v; ; ) {
            v = c.get();
            int front = (int) (v >>> 32), back = (int) v;
            if (front >= back) return -1;
            long next = owner ? ((long) (front + 1) << 32) | back : ((long) front << 32) | (back - 1);
            if (c.compareAndSet(v, next)) return owner ? front : back - 1;
        }
    }

    /** T sweeps of a whole image (block without cuts), sweep sigma two rows behind sweep sigma - 1. */
    private static void severalSweeps(int p, Block b, int sweeps, boolean up, RowPass pass) {
        int h = b.r1();
        for (int r = 0; r <= h + 2 * sweeps - 2; r++) {
            for (int sigma = 0; sigma < sweeps; sigma++) {
                int r0 = r - 2 * sigma;
                if (r0 >= 0 && r0 < h) pass.run(p, 0, b.image(), row(r0, h, up));
                if (r0 - 1 >= 0 && r0 - 1 < h) pass.run(p, 1, b.image(), row(r0 - 1, h, up));
            }
        }
    }

    /** One sweep: phase 1, each part's blocks in wavefront order; phase 2, colour 1 of the rows next to cuts. */
    void sweep(SweepPool pool, RowPass pass) {
        pool.run(parts.size(), p -> {
            for (Block b : parts.get(p)) wavefront(p, b, pass);
        });
        if (!cuts) return;
        pool.run(parts.size(), p -> {
            for (Block b : parts.get(p)) {
                if (b.cutTop()) pass.run(p, 1, b.image(), b.r0());
                if (b.cutBottom() && !(b.cutTop() && b.r1() - 1 == b.r0())) pass.run(p, 1, b.image(), b.r1() - 1);
            }
        });
    }

    /** Colour 0 of row r, then colour 1 of row r-1, for the rows whose colour 1 needs nothing from another block. */
    private static void wavefront(int p, Block b, RowPass pass) {
        int lo = b.r0() + (b.cutTop() ? 1 : 0), hi = b.r1() - (b.cutBottom() ? 1 : 0);   // colour-1 rows [lo, hi)
        for (int r = b.r0(); r < b.r1(); r++) {
            pass.run(p, 0, b.image(), r);
            if (r - 1 >= lo && r - 1 < hi) pass.run(p, 1, b.image(), r - 1);
        }
        if (b.r1() - 1 >= lo && b.r1() - 1 < hi) pass.run(p, 1, b.image(), b.r1() - 1);
    }

    /** The plain order, all of colour 0 then all of colour 1 (for tests: it must give the same bits). */
    void plainSweep(RowPass pass) {
        for (int c = 0; c < 2; c++) {
            for (int k = 0; k < rows.length; k++) {
                for (int r = 0; r < rows[k]; r++) pass.run(0, c, k, r);
            }
        }
    }
}
