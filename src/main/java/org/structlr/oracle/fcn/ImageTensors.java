package org.structlr.oracle.fcn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.DynamicCustomOp;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.structlr.graph.GridBatch;
import org.structlr.memory.RowGather;

/**
 * Moving between the row layout of a grid batch (one row per pixel, images stacked in
 * {@link GridBatch} order) and the whole-image tensors of a convolutional network ({@code [1, ch, H, W]},
 * NCHW). A network with {@code K*C} output channels holds K groups of C scores per pixel; as rows they
 * are {@code [V*K, C]}, row {@code (v, s)} at {@code v*K + s}. For the pairwise FCN (K = 2) group 0 of
 * pixel (r, c) scores the edge to its right neighbour and group 1 the edge to the pixel below.
 */
final class ImageTensors {
    /** Group of the edge to the right neighbour (horizontal) and to the one below (vertical). */
    static final int RIGHT = 0, DOWN = 1;

    private ImageTensors() {
    }

    /** Image k of the batch as {@code [1, D, H, W]} from {@code rows [V, D]}, in {@code type}. */
    static INDArray image(INDArray rows, GridBatch layout, int k, DataType type) {
        int h = layout.height(k), w = layout.width(k), off = layout.variableOffset(k);
        long d = rows.size(1);
        INDArray part = rows.get(NDArrayIndex.interval(off, off + h * w), NDArrayIndex.all());
        return toChannels(part, h, w, 1, type);
    }

    /**
     * {@code a [B, ch, H, W]} zero-padded at the bottom and the right to H and W multiples of
     * {@code multiple = {mh, mw}} (itself when they are): for a network whose pools need such sizes
     * ({@link FcnGraph#sizeMultiple}). Padded pixels have all-zero features (even the constant
     * feature is 0 there, as at the zero border a same-padded convolution sees), and padded targets
     * are all-zero groups, which add nothing to {@link FcnLoss}.
     */
    static INDArray pad(INDArray a, int[] multiple) {
        long h = a.size(2), w = a.size(3);
        long ph = Math.floorMod(-h, (long) multiple[0]), pw = Math.floorMod(-w, (long) multiple[1]);
        if (ph == 0 && pw == 0) return a;
        INDArray out = Nd4j.zeros(a.dataType(), a.size(0), a.size(1), h + ph, w + pw);
        out.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(0, h), NDArrayIndex.interval(0, w)).assign(a);
        return out;
    }

    /** The top-left {@code h x w} of {@code a [B, ch, H', W']} (the inverse of {@link #pad}). */
    static INDArray crop(INDArray a, long h, long w) {
        if (a.size(2) == h && a.size(3) == w) return a;
        return a.get(NDArrayIndex.all(), NDArrayIndex.all(), NDArrayIndex.interval(0, h), NDArrayIndex.interval(0, w)).dup('c');
    }

    /** Rows {@code [H*W*K, C]} (pixel-major, then group) of one image as {@code [1, K*C, H, W]}. */
    static INDArray toChannels(INDArray rows, int h, int w, int groups, DataType type) {
        long kc = rows.size(1) * groups;
        INDArray a = rows.castTo(type).dup('c').reshape('c', (long) h * w, kc);   // pixel, channel
        return a.transpose().dup('c').reshape('c', 1, kc, h, w);
    }

    /** {@code [1, K*C, H, W]} as rows {@code [H*W*K, C]}. */
    static INDArray toRows(INDArray out, int groups) {
        long kc = out.size(1), hw = out.size(2) * out.size(3);
        return out.reshape('c', kc, hw).transpose().dup('c').reshape('c', hw * groups, kc / groups);
    }

    /**
     * For every edge of the layout (its order: per image, horizontal edges row-major, then vertical
     * row-major), its row in the {@code [V*2, C]} group rows: {@code (v*2 + RIGHT)} for the horizontal
     * edge (v, v+1), {@code (v*2 + DOWN)} for the vertical edge (v, v+W).
     */
    static int[] edgeSlots(GridBatch layout) {
        int[] slots = new int[layout.numEdges()];
        int e = 0;
        for (int k = 0; k < layout.count(); k++) {
            int h = layout.height(k), w = layout.width(k), off = layout.variableOffset(k);
            for (int r = 0; r < h; r++) for (int c = 0; c + 1 < w; c++) slots[e++] = (off + r * w + c) * 2 + RIGHT;
            for (int r = 0; r + 1 < h; r++) for (int c = 0; c < w; c++) slots[e++] = (off + r * w + c) * 2 + DOWN;
        }
        return slots;
    }

    /**
     * {@link #edgeSlots} as a row gather of the group rows (pairwise scores in layout edge order), kept
     * for the last {@value #KEPT_LAYOUTS} layouts: the pairwise fcn's functions are new at every fit but
     * score the same batches (training, test) every iteration, so on CUDA the slots go to the device once
     * per batch rather than at every scoring (E ints).
     */
    static RowGather edgeSlotRows(GridBatch layout) {
        synchronized (EDGE_SLOT_ROWS) {
            return EDGE_SLOT_ROWS.computeIfAbsent(layout, l -> RowGather.of(edgeSlots(l)));
        }
    }

    static final int KEPT_LAYOUTS = 4;
    private static final java.util.Map<GridBatch, RowGather> EDGE_SLOT_ROWS = new java.util.LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<GridBatch, RowGather> eldest) {
            return size() > KEPT_LAYOUTS;
        }
    };

    /**
     * Per image {@code {one-hot, bias}}, each {@code [1, KC, H, W]}: problem row i is group row
     * {@code slot(i)} of the batch ({@link #slots}); groups no row names stay all-zero and so do not
     * count (see {@link FcnLoss}). Built with ND4J ops where the arrays are (on a GPU: on the device):
     * the bias, which the learner computed in ND4J arrays from the messages, and the problem's target
     * rows ({@link BiasedLogisticProblem#targetMatrix}, made once per problem from its host labels,
     * which the loss reuses) are scattered into place; from the host come only the slots (n ints),
     * and not even those when every group row is a problem row in order (a unary problem without void
     * pixels: the rows are already in place).
     */
    static INDArray[][] labels(BiasedLogisticProblem p, ImageRows im, int groups, DataType t) {
        GridBatch layout = im.layout();
        long slots = (long) layout.numVariables() * groups;
        int[] slot = slots(im);
        INDArray oneHot, biasRows;
        if (ImageRows.inOrder(slot, slots)) {   // problem row i is group row i: no scatter
            oneHot = p.targetMatrix().castTo(t);
            biasRows = p.bias().castTo(t);
        } else {
            INDArray at = Nd4j.createFromArray(slot);
            oneHot = scatterRows(slots, at, p.targetMatrix().castTo(t));
            biasRows = scatterRows(slots, at, p.bias().castTo(t));
        }
        INDArray[][] out = new INDArray[layout.count()][];
        for (int k = 0; k < out.length; k++) {
            int h = layout.height(k), w = layout.width(k);
            long from = (long) layout.variableOffset(k) * groups, to = from + (long) h * w * groups;
            out[k] = new INDArray[]{
                    toChannels(oneHot.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()), h, w, groups, t),
                    toChannels(biasRows.get(NDArrayIndex.interval(from, to), NDArrayIndex.all()), h, w, groups, t)};
        }
        return out;
    }

    /** Every problem row's group row: its pixel for unary rows, {@link #edgeSlots} of its edge for pairwise rows. */
    static int[] slots(ImageRows im) {
        int[] rows = im.rows();
        if (!im.perEdge()) return rows;
        int[] slotOf = edgeSlots(im.layout()), out = new int[rows.length];
        for (int i = 0; i < rows.length; i++) out[i] = slotOf[rows[i]];
        return out;
    }

    /** {@code [slots, C]} zeros with row {@code at[i]} = {@code rows[i]} (distinct slots), by ND4J's scatter_upd. */
    private static INDArray scatterRows(long slots, INDArray at, INDArray rows) {
        INDArray zeros = Nd4j.zeros(rows.dataType(), slots, rows.size(1));
        if (rows.size(0) == 0) return zeros;
        return Nd4j.exec(DynamicCustomOp.builder("scatter_upd").addInputs(zeros, at, rows).addOutputs(zeros).build())[0];
    }
}
