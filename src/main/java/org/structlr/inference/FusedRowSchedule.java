package org.structlr.inference;

import java.util.ArrayList;
import java.util.List;
import org.structlr.graph.GridBatch;

/**
 * The order in which one red-black sweep visits the pixel rows, so that both colours of a row are
 * updated while its data is still in cache, with exactly the result of the plain order (all of
 * colour 0, then all of colour 1).
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
 * <h2>Threads</h2>
 * Images are cut into blocks of rows, contiguous per thread. A cut inside an image couples two
 * blocks: colour 1 of the rows on either side of the cut needs colour 0 of the other block. Those
 * (at most two rows per block) wait for a second phase after all threads have finished their
 * blocks. Pixels of one colour share no edge, so neither the cuts nor the thread count change a bit.
 */
final class FusedRowSchedule {
    /** The star update of colour c over pixel row r of image k, run by part p (p's scratch may be reused). */
    interface RowPass {
        void run(int part, int c, int image, int row);
    }

    /** Rows [r0, r1) of one image; cutTop / cutBottom: the neighbouring rows belong to another block. */
    record Block(int image, int r0, int r1, boolean cutTop, boolean cutBottom) {}

    /** Per thread, its blocks in order. */
    final List<List<Block>> parts;

    /**
     * Rows are dealt to {@code threads} parts of about equal pixel count, in image order; an image
     * is cut only where a part ends inside it.
     */
    FusedRowSchedule(GridBatch batch, int threads) {
        long total = 0;
        for (int k = 0; k < batch.count(); k++) total += (long) batch.height(k) * batch.width(k);
        List<List<Block>> ps = new ArrayList<>();
        List<Block> current = new ArrayList<>();
        long done = 0;
        int part = 0;
        for (int k = 0; k < batch.count(); k++) {
            int h = batch.height(k), w = batch.width(k), r0 = 0;
            for (int r = 0; r < h; r++) {
                done += w;
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
    }

    /** One sweep: phase 1, each part's blocks in wavefront order; phase 2, colour 1 of the rows next to cuts. */
    void sweep(SweepPool pool, RowPass pass) {
        pool.run(parts.size(), p -> {
            for (Block b : parts.get(p)) wavefront(p, b, pass);
        });
        boolean cuts = parts.stream().flatMap(List::stream).anyMatch(b -> b.cutTop() || b.cutBottom());
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
    static void plainSweep(GridBatch batch, RowPass pass) {
        for (int c = 0; c < 2; c++) {
            for (int k = 0; k < batch.count(); k++) {
                for (int r = 0; r < batch.height(k); r++) pass.run(0, c, k, r);
            }
        }
    }
}
