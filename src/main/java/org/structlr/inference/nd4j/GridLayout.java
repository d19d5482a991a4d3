package org.structlr.inference.nd4j;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.graph.Grids;

/**
 * Where every pixel and edge of a {@link GridBatch} sits in the checkerboard sub-lattice planes of
 * the ND4J grid engine. Pure geometry: no ND4J arrays here.
 *
 * <h2>Sub-lattices</h2>
 * Pixel {@code (r, c) = (2p + a, 2q + b)} of an image belongs to sub-lattice {@code (a, b)}. Colour
 * {@code (r + c) % 2}: colour 0 holds (0,0) and (1,1), colour 1 holds (0,1) and (1,0); in both, the
 * member is {@code j = a} (the row parity).
 *
 * <h2>Ragged batches: images stacked by rows over one common width</h2>
 * All images share the sub-lattice row width {@code W2 = ceil(max_k w_k / 2)}; image k owns
 * {@code ceil(h_k / 2)} sub-lattice rows starting at row {@code rowOffset[k]}:
 * <pre>
 *   k(img, r, c) = (rowOffset[img] + r / 2) * W2 + c / 2,       n = W2 * sum_k ceil(h_k / 2)
 *   jn           = j * n + k                                       (j = r % 2)
 * </pre>
 * Positions not covered by a pixel (odd sizes, images narrower than the widest) are phantom pixels
 * with no edges. Every neighbour is then in a sub-lattice of the other colour at a flat offset of
 * 0, +-1 or +-W2 for every image alike, which is what lets one offset view serve the whole batch.
 * Why rows over a common width rather than every image padded to the largest height and width:
 * the padding is only {@code sum_k ceil(h_k/2) * (W2 - ceil(w_k/2))} (for the horses at longest
 * side 96, mostly landscape, it is a few per cent of the plane, against about a quarter for the full
 * padded plane; see docs/wave2/ndgrid.md), and a uniform batch gets exactly the old layout.
 */
final class GridLayout {
    /** Edge directions seen from a pixel; {@code d ^ 1} is the opposite direction. */
    static final int RIGHT = 0, LEFT = 1, DOWN = 2, UP = 3;

    /** A pixel's place: colour plane and index {@code jn} inside it. */
    record Slot(int colour, int jn) {}

    /** An edge in natural order: its first end (left or upper pixel), its second end, and its direction at the first end. */
    record EdgeSlots(Slot first, Slot second, int dir) {}

    /** The neighbour of a sub-lattice in some direction: member of the other colour, flat offset. */
    record Neighbour(int member, int offset) {}

    final GridBatch batch;
    final int labels;
    /** Common sub-lattice row width and positions per member. */
    final int w2, n;
    final int[] rowOffset;
    final FactorGraph graph;
    /** Per natural variable / edge. */
    final Slot[] varSlot;
    final EdgeSlots[] edges;
    /** realPix[c][jn]; realEdge[c][d][jn]: the pixel has an edge in direction d. */
    final boolean[][] realPix;
    final boolean[][][] realEdge;

    GridLayout(GridBatch batch, int labels) {
        if (labels < 2) throw new IllegalArgumentException("at least 2 labels are needed, got " + labels);
        this.batch = batch;
        this.labels = labels;
        int count = batch.count(), maxW = 0;
        rowOffset = new int[count];
        long rows = 0;
        for (int k = 0; k < count; k++) {
            maxW = Math.max(maxW, batch.width(k));
            rowOffset[k] = (int) rows;
            rows += (batch.height(k) + 1) / 2;
        }
        this.w2 = (maxW + 1) / 2;
        long nl = rows * w2;
        if (nl * 8L * labels * labels > Integer.MAX_VALUE) throw new IllegalArgumentException("grid batch too large: " + batch);
        this.n = (int) nl;

        Map<Long, FactorGraph> byShape = new HashMap<>();
        List<FactorGraph> parts = new ArrayList<>();
        for (int k = 0; k < count; k++) {
            int h = batch.height(k), w = batch.width(k);
            parts.add(byShape.computeIfAbsent((long) h << 32 | w, s -> Grids.grid(h, w, labels, false)));
        }
        this.graph = FactorGraph.disjointUnion(parts);

        int n2 = 2 * n;
        varSlot = new Slot[batch.numVariables()];
        edges = new EdgeSlots[batch.numEdges()];
        realPix = new boolean[2][n2];
        realEdge = new boolean[2][4][n2];
        for (int img = 0; img < count; img++) {
            int h = batch.height(img), w = batch.width(img), v0 = batch.variableOffset(img);
            for (int r = 0; r < h; r++) {
                for (int c = 0; c < w; c++) {
                    Slot s = new Slot((r + c) & 1, jnOf(img, r, c));
                    varSlot[v0 + r * w + c] = s;
                    realPix[s.colour][s.jn] = true;
                    realEdge[s.colour][RIGHT][s.jn] = c + 1 < w;
                    realEdge[s.colour][LEFT][s.jn] = c > 0;
                    realEdge[s.colour][DOWN][s.jn] = r + 1 < h;
                    realEdge[s.colour][UP][s.jn] = r > 0;
                }
            }
            int e = batch.edgeOffset(img);
            for (int r = 0; r < h; r++) {
                for (int c = 0; c + 1 < w; c++) edges[e++] = new EdgeSlots(varSlot[v0 + r * w + c], varSlot[v0 + r * w + c + 1], RIGHT);
            }
            for (int r = 0; r + 1 < h; r++) {
                for (int c = 0; c < w; c++) edges[e++] = new EdgeSlots(varSlot[v0 + r * w + c], varSlot[v0 + (r + 1) * w + c], DOWN);
            }
        }
    }

    int numVariables() { return varSlot.length; }
    int numEdges() { return edges.length; }

    private int jnOf(int img, int r, int c) {
        return (r & 1) * n + (rowOffset[img] + (r >> 1)) * w2 + (c >> 1);
    }

    /** Real edges of the pixel at {@code jn} of colour {@code col}: N - 1 in the star update. */
    int degree(int col, int jn) {
        int deg = 0;
        for (int d = 0; d < 4; d++) if (realEdge[col][d][jn]) deg++;
        return deg;
    }

    /**
     * The neighbour of member j of colour col in direction d. Member j of colour col is sub-lattice
     * (a, b) = (j, (col + j) % 2); moving right from (2p + a, 2q + b) lands in (a, 1 - b) at the
     * same q when b = 0, at q + 1 when b = 1; moving down lands in (1 - a, b) at the same p when
     * a = 0, at p + 1 (offset +W2) when a = 1; left and up mirror these.
     */
    Neighbour neighbour(int col, int j, int d) {
        int a = j, b = (col + j) & 1;
        return switch (d) {
            case RIGHT -> new Neighbour(a, b == 0 ? 0 : 1);
            case LEFT -> new Neighbour(a, b == 1 ? 0 : -1);
            case DOWN -> a == 0 ? new Neighbour(1, 0) : new Neighbour(0, w2);
            default -> a == 1 ? new Neighbour(0, 0) : new Neighbour(1, -w2);
        };
    }

    /** Positions in the planes of both colours, phantom ones included: the work one sweep does per label. */
    long planePositions() { return 4L * n; }
}
