package org.structlr.inference.fused;

import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;

/**
 * Where every pixel and every directed message of a {@link GridBatch} lives in the fused engine's
 * structure-of-arrays planes (the layout only: no values).
 *
 * <h2>Colours, members, positions</h2>
 * Pixel (r, col) of image k has colour {@code c = (r + col) % 2} (the checkerboard) and member
 * {@code j = r % 2}. Within one (colour, member) the pixels of image k form a little grid of
 * {@code h2 = ceil(H/2)} rows by {@code w2 = ceil(W/2)} columns: {@code r = 2 p + j},
 * {@code col = 2 q + b} with {@code b = (c + j) % 2}. Its position is
 * {@code i = j * n + base(k) + p * stride(k) + q}, with {@code stride = w2}, or w2 rounded up to
 * whole vectors when rows are aligned (then every pixel row of one colour is a whole number of
 * vectors, which the row-by-row order of {@link FusedRowSchedule} needs); image blocks are padded
 * to a multiple of the vector length, so a vector never straddles two images and no pass needs a
 * scalar tail. Positions that are not pixels ("phantoms", odd sizes and padding) have no edges.
 *
 * <h2>Strips</h2>
 * The unit of work of a sweep is a strip: {@link #stripRows} consecutive pixel rows of one image,
 * the fewest from whose multiples both members' positions start on a whole vector, so that two
 * strips never share a vector and one pass over a strip needs no scalar tail. With aligned rows a
 * strip is one row; otherwise 2 lanes / gcd(stride, lanes) rows (16 for 100 pixels wide and 16
 * lanes). The last strip of an image ends at its last row.
 *
 * <h2>Neighbours</h2>
 * Every neighbour of a colour-c pixel has colour 1 - c and sits at a constant offset per
 * (member, image, direction), so a neighbour plane is read as a shifted contiguous vector:
 * <pre>
 *   right: i + b                      (same member)
 *   left:  i + b - 1                  (same member)
 *   down:  i + (1 - 2j) n + j stride      (other member)
 *   up:    i + (1 - 2j) n + (j-1) stride  (other member)
 * </pre>
 * Lanes whose edge does not exist read a neighbour's value that belongs to something else (always
 * finite or minus infinity); the kernel masks them out with {@link #realEdge}.
 */
final class FusedGridLayout {
    static final int RIGHT = 0, LEFT = 1, DOWN = 2, UP = 3;

    final GridBatch batch;
    final int lanes;
    /** Positions per member; a plane holds both members: {@code planeLength = 2 n}. */
    final int n, planeLength;
    /** Margin before and after every message plane so that shifted reads stay inside the array. */
    final int pad;
    final int[] w2, h2, stride, base, blockLength;
    /** Whether every (member, image) row starts at a whole vector ({@code stride} = w2 rounded up). */
    final boolean alignedRows;
    /** Per natural variable: colour, position, and the first position of its (member, image) row. */
    final int[] varColour, varPos, varRowStart, varStride;
    /** Per edge: direction at its first end (RIGHT or DOWN; the second end sees {@code d ^ 1}). */
    final int[] edgeDir;
    /** {@code realEdge[c][d][i]}: the pixel at position i of colour c has an edge in direction d. */
    final boolean[][][] realEdge;
    /** {@code invN[c][i] = 1 / (degree + 1)}. */
    final float[][] invN;
    /** {@code pixel[c][i]}: position i of colour c is a pixel (not a phantom). */
    final boolean[][] pixel;
    /** Per image: pixel rows per strip. */
    final int[] stripRows;

    FusedGridLayout(GridBatch batch, int lanes, boolean alignedRows) {
        this.batch = batch;
        this.lanes = lanes;
        this.alignedRows = alignedRows;
        int count = batch.count();
        w2 = new int[count];
        h2 = new int[count];
        stride = new int[count];
        base = new int[count];
        blockLength = new int[count];
        stripRows = new int[count];
        long total = 0;
        int maxW2 = 0;
        for (int k = 0; k < count; k++) {
            w2[k] = (batch.width(k) + 1) / 2;
            h2[k] = (batch.height(k) + 1) / 2;
            stride[k] = alignedRows ? roundUp(w2[k], lanes) : w2[k];
            base[k] = (int) total;
            blockLength[k] = roundUp(h2[k] * stride[k], lanes);
            stripRows[k] = alignedRows ? 1 : 2 * lanes / gcd(stride[k], lanes);
            total += blockLength[k];
            maxW2 = Math.max(maxW2, stride[k]);
        }
        if (total * 2 * 4 * 25 > Integer.MAX_VALUE) throw new IllegalArgumentException("grid batch too large for the fused engine: " + batch);
        n = (int) total;
        planeLength = 2 * n;
        pad = roundUp(maxW2 + 1 + lanes, lanes);

        int nv = batch.numVariables();
        varColour = new int[nv];
        varPos = new int[nv];
        varRowStart = new int[nv];
        varStride = new int[nv];
        realEdge = new boolean[2][4][planeLength];
        invN = new float[2][planeLength];
        pixel = new boolean[2][planeLength];
        for (int c = 0; c < 2; c++) java.util.Arrays.fill(invN[c], 1f);
        for (int k = 0, v = 0; k < count; k++) {
            int h = batch.height(k), w = batch.width(k);
            for (int r = 0; r < h; r++) {
                for (int col = 0; col < w; col++, v++) {
                    int c = (r + col) & 1, i = position(k, r, col);
                    varColour[v] = c;
                    varPos[v] = i;
                    pixel[c][i] = true;
                    varRowStart[v] = position(k, r, 0);
                    varStride[v] = stride[k];
                    boolean[][] re = realEdge[c];
                    re[RIGHT][i] = col + 1 < w;
                    re[LEFT][i] = col > 0;
                    re[DOWN][i] = r + 1 < h;
                    re[UP][i] = r > 0;
                    int deg = (re[RIGHT][i] ? 1 : 0) + (re[LEFT][i] ? 1 : 0) + (re[DOWN][i] ? 1 : 0) + (re[UP][i] ? 1 : 0);
                    invN[c][i] = 1f / (deg + 1);
                }
            }
        }
        edgeDir = new int[batch.numEdges()];
        for (int k = 0, e = 0; k < count; k++) {
            int h = batch.height(k), w = batch.width(k);
            int horizontal = h * (w - 1), vertical = (h - 1) * w;
            for (int a = 0; a < horizontal; a++) edgeDir[e++] = RIGHT;
            for (int a = 0; a < vertical; a++) edgeDir[e++] = DOWN;
        }
    }

    /** Position of pixel (r, col) of image k (in the plane of its colour). */
    int position(int k, int r, int col) {
        int j = r & 1;
        return j * n + base[k] + (r >> 1) * stride[k] + (col >> 1);
    }

    /** The number of strips of image k. */
    int strips(int k) {
        return (batch.height(k) + stripRows[k] - 1) / stripRows[k];
    }

    /**
     * The first position of member j in strip s of image k; the strip's positions of member j are
     * [stripStart(k, j, s), stripStart(k, j, s + 1)), empty when the strip has no row of member j.
     * Whole vectors: the last strip's end is rounded up to one (phantoms of the block's padding).
     */
    int stripStart(int k, int j, int s) {
        int r = Math.min(s * stripRows[k], batch.height(k));
        int p = (r - j + 1) >> 1;   // rows of member j above row r: ceil((r - j) / 2)
        return j * n + base[k] + roundUp(p * stride[k], lanes);
    }

    /** Offset from a position of member j of image k, colour c, to its neighbour in direction d (colour 1 - c). */
    int neighbourOffset(int c, int j, int k, int d) {
        int b = (c + j) & 1, w = stride[k];
        return switch (d) {
            case RIGHT -> b;
            case LEFT -> b - 1;
            case DOWN -> (1 - 2 * j) * n + j * w;
            default -> (1 - 2 * j) * n + (j - 1) * w;
        };
    }

    /** Whether {@code g} is exactly this batch (variables, edges, one label count). */
    boolean matches(FactorGraph g) {
        return batch.matches(g);
    }

    static int roundUp(int x, int m) {
        return (x + m - 1) / m * m;
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
