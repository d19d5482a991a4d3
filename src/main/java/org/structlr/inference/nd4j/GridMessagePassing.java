package org.structlr.inference.nd4j;

import org.structlr.inference.StatePacking;

import org.structlr.inference.MessagePassing;
import org.structlr.inference.SweepProfile;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;

/**
 * Star-update message passing (docs/design.md §1) on a batch of 4-connected grids of any sizes with one
 * label count, on ND4J element-wise ops (the CPU and CUDA path for grids). The graph is the
 * disjoint union of {@code Grids.grid(h_k, w_k, labels, false)} in {@link GridBatch} order; the
 * colouring is each image's checkerboard {@code (row + col) % 2}, colour 0 first, so a batch gives
 * the same result as its images one at a time.
 *
 * <p>The pieces, one job each: {@link GridLayout} (where pixels and edges sit in the checkerboard
 * sub-lattice planes), {@link GridPlanes} (the ND4J arrays), {@link GridSweep} (the star update,
 * element-wise ops only), {@link GridNaturalOrder} (potentials and messages to and from natural
 * order, hard constraints) and {@link GridReadouts} (dual, primal, beliefs, decoding).
 */
public final class GridMessagePassing implements MessagePassing {
    private final GridLayout layout;
    private final GridPlanes planes;
    private final GridSweep sweep;
    private final GridNaturalOrder natural;
    private final GridReadouts readouts;
    private final double eps;
    private boolean potentialsSet;

    /** {@code count} grids of {@code height x width}. */
    public GridMessagePassing(int count, int height, int width, int labels, double eps, DataType dtype) {
        this(uniform(count, height, width), labels, eps, dtype);
    }

    /** The grids of {@code batch}, each with its own size. */
    public GridMessagePassing(GridBatch batch, int labels, double eps, DataType dtype) {
        if (labels < 2) throw new IllegalArgumentException("at least 2 labels are needed, got " + labels);
        if (!(eps > 0) || Double.isInfinite(eps)) throw new IllegalArgumentException("eps must be positive and finite, got " + eps);
        if (dtype != DataType.FLOAT && dtype != DataType.DOUBLE) throw new IllegalArgumentException("dtype must be FLOAT or DOUBLE, got " + dtype);
        this.eps = eps;
        this.layout = new GridLayout(batch, labels);
        this.planes = new GridPlanes(layout, dtype);
        this.sweep = new GridSweep(planes);
        this.natural = new GridNaturalOrder(planes, eps);
        this.readouts = new GridReadouts(planes, sweep, eps);
        natural.resetMessages();
    }

    private static GridBatch uniform(int count, int height, int width) {
        if (count < 1) throw new IllegalArgumentException("count must be at least 1, got " + count);
        if (height < 1 || width < 1) throw new IllegalArgumentException("grid of " + height + "x" + width + " has no pixels");
        return GridBatch.uniform(count, height, width);
    }

    @Override public FactorGraph graph() { return layout.graph; }
    @Override public double eps() { return eps; }

    public GridBatch batch() { return layout.batch; }
    public int count() { return layout.batch.count(); }
    public int labels() { return layout.labels; }
    public DataType dataType() { return planes.dtype; }

    /** The height of every grid; for uniform batches only ({@link #batch()} has each one's). */
    public int height() { return uniformBatch().height(0); }

    /** The width of every grid; for uniform batches only. */
    public int width() { return uniformBatch().width(0); }

    private GridBatch uniformBatch() {
        if (!layout.batch.isUniform()) throw new IllegalStateException("grids of several sizes: " + layout.batch);
        return layout.batch;
    }

    /** Per-phase timing of the sweeps (GridSpeedCheck). */
    SweepProfile profile() { return sweep.profile; }

    @Override
    public void iterate(int sweeps) {
        if (sweeps < 0) throw new IllegalArgumentException("sweeps must be at least 0, got " + sweeps);
        for (int s = 0; s < sweeps; s++) sweep.sweep();
    }

    @Override
    public void setPotentials(INDArray unary, INDArray pairwise) {
        natural.setPotentials(unary, pairwise);
        potentialsSet = true;
    }

    @Override public INDArray messages() { return natural.messages(); }
    @Override public void setMessages(INDArray messages) { natural.setMessages(messages); }
    @Override public void resetMessages() { natural.resetMessages(); }
    @Override public INDArray incomingMessageSums() { return natural.incomingMessageSums(); }

    /**
     * The planes lam (colour 0, then 1) and U (colour 0, then 1) in the engine's units (eps) and
     * layout, bit for bit (DOUBLE engines: two floats per value, see {@link StatePacking}).
     */
    @Override public boolean exactState() { return true; }

    @Override public float[] state() { return planes.state(); }

    @Override public void setState(float[] state) { planes.setState(state); }

    @Override public double dual() { requirePotentials(); return readouts.dual(); }
    @Override public double primal() { requirePotentials(); return readouts.primal(); }
    @Override public INDArray unaryBeliefs() { requirePotentials(); return readouts.unaryBeliefs(natural); }
    @Override public INDArray pairBeliefs() { requirePotentials(); return readouts.pairBeliefs(); }
    @Override public int[] decode() { requirePotentials(); return readouts.decode(natural); }

    private void requirePotentials() {
        if (!potentialsSet) throw new IllegalStateException("setPotentials has not been called");
    }

    /** Positions per label in the planes (phantom ones included) over pixels: the padding overhead of a batch's layout. */
    public static double paddingFactor(GridBatch batch) {
        GridLayout l = new GridLayout(batch, 2);
        return (double) l.planePositions() / batch.numVariables();
    }

}
