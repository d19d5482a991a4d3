package org.structlr.inference;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.FactorGraph;

/**
 * Entropy-smoothed LP inference by star updates on the dual (docs/design.md §1). Implementations keep
 * their messages between calls, so changing the potentials and iterating again is a warm start.
 *
 * <p>Regions (factors over any number of variables, {@link FactorGraph#numRegions()}) are part of
 * the dual, the star updates, the beliefs and the primal exactly as edges are. Engines that take a
 * graph with regions implement the region methods below; the grid engines never see one (a graph
 * with regions is no grid, {@link org.structlr.graph.GridBatch#matches}), and for them the defaults
 * describe the empty set of regions.
 *
 * <p>Conventions shared by every implementation:
 * <ul>
 *   <li>potentials: unary {@code [V, L]} and pairwise {@code [E, L*L]} (edge (i, j) flattened as
 *       {@code y_i * L + y_j}), with {@code L = graph().maxLabels()}; entries of labels a variable
 *       does not have are ignored; minus infinity is a hard constraint; NaN and plus infinity are
 *       refused.</li>
 *   <li>messages: {@code [E, 2, L]}, {@code [e, 0, :]} is lambda from edge e to its first variable,
 *       {@code [e, 1, :]} to its second, in the units of the potentials. An impossible label carries
 *       minus infinity.</li>
 *   <li>one iteration (sweep) = one star update at every variable, colour class by colour class.</li>
 * </ul>
 */
public interface MessagePassing extends AutoCloseable {

    FactorGraph graph();

    double eps();

    /** Sets the potentials and keeps the current messages (warm start); region tables stay as they are. */
    void setPotentials(INDArray unary, INDArray pairwise);

    /**
     * Sets every factor's potentials, the regions' too: {@code regions} holds
     * {@code graph().totalRegionEntries()} values, region r's table from
     * {@link FactorGraph#regionTableOffset}(r) (row-major over its variables, the last fastest).
     */
    default void setPotentials(INDArray unary, INDArray pairwise, INDArray regions) {
        requireNoRegions();
        if (regions.length() != 0) throw new IllegalArgumentException("region potentials of " + regions.length() + " entries for a graph without regions");
        setPotentials(unary, pairwise);
    }

    /** {@code [graph().totalRegionEntries()]} pseudo-marginals of the regions (each region's table sums to 1). */
    default INDArray regionBeliefs() {
        requireNoRegions();
        return org.nd4j.linalg.factory.Nd4j.create(org.nd4j.linalg.api.buffer.DataType.DOUBLE, 0);
    }

    /**
     * A copy of the region messages {@code [graph().numRegionSlots(), L]}: row
     * {@link FactorGraph#regionSlot}(r, p) is lambda from region r to its p-th variable.
     */
    default INDArray regionMessages() {
        requireNoRegions();
        return org.nd4j.linalg.factory.Nd4j.create(org.nd4j.linalg.api.buffer.DataType.DOUBLE, 0, graph().maxLabels());
    }

    /** Replaces the region messages ({@link #regionMessages()}'s layout). */
    default void setRegionMessages(INDArray messages) {
        requireNoRegions();
    }

    private void requireNoRegions() {
        if (graph().hasRegions()) {
            throw new IllegalStateException(getClass().getSimpleName() + " was given a graph with regions but implements none of them");
        }
    }

    /** Runs {@code sweeps} full sweeps of star updates. */
    void iterate(int sweeps);

    /**
     * Iterates until |duality gap| is at most {@code stop.gapTolerance()}, the iteration limit or the deadline.
     * Away from the optimum the beliefs are not locally consistent and the "primal" is no lower
     * bound, so the gap can be negative: only its magnitude says anything about convergence.
     */
    default InferenceResult run(StopRule stop) {
        int done = 0;
        double gap = Double.NaN;
        while (done < stop.maxIterations() && !stop.pastDeadline()) {
            int k = Math.min(stop.checkEvery(), stop.maxIterations() - done);
            iterate(k);
            done += k;
            if (stop.gapTolerance() > 0) {
                gap = gap();
                if (Math.abs(gap) <= stop.gapTolerance()) break;
            }
        }
        double d = dual(), p = primal();
        return new InferenceResult(done, d, p, d - p, Math.abs(d - p) <= stop.gapTolerance());
    }

    /** The smoothed dual A(lambda, theta) at the current messages. */
    double dual();

    /** theta . b + eps * (sum_i H(b_i) + sum_a H(b_a)) at the beliefs of the current messages. */
    double primal();

    default double gap() {
        return dual() - primal();
    }

    /** {@code [V, L]} pseudo-marginals of the variables (zero on impossible labels). */
    INDArray unaryBeliefs();

    /** {@code [E, L*L]} pseudo-marginals of the edges. */
    INDArray pairBeliefs();

    /** The label of largest unary belief for every variable. */
    int[] decode();

    /** A copy of the messages, {@code [E, 2, L]}. */
    INDArray messages();

    /** Replaces the messages (a warm start from given messages). */
    void setMessages(INDArray messages);

    /**
     * The engine's whole message state, exactly as it holds it (engine-specific layout and units):
     * {@link #setState} on an engine of the same class over the same graph and eps restores it bit
     * for bit, so checkpoints and distributed workers need not round-trip through {@link #messages()}.
     * Plain floats, so that it serialises anywhere (checkpoints, Spark partitions). The default
     * goes through {@link #messages()}, which is exact only for engines that store natural units.
     */
    default float[] state() {
        return messages().castTo(org.nd4j.linalg.api.buffer.DataType.FLOAT).reshape(-1).toFloatVector();
    }

    /**
     * Whether {@link #state()} and {@link #setState} are this engine's own exact state: true when a
     * state taken and set back leaves the engine bit for bit as it was. The default (false) goes
     * through {@link #messages()}, which rounds for an engine that keeps other units or more
     * precision; a learner re-seats such an engine ({@code setMessages(messages())}) after each
     * iteration so that an uninterrupted run and a resumed one continue from the same bits.
     */
    default boolean exactState() {
        return false;
    }

    /** Restores a {@link #state()} taken from an engine of the same class, graph and eps. */
    default void setState(float[] state) {
        int L = graph().maxLabels();
        if (state.length != graph().numEdges() * 2 * L) {
            throw new IllegalArgumentException("state of " + state.length + " floats, this engine holds " + graph().numEdges() * 2 * L);
        }
        setMessages(org.nd4j.linalg.factory.Nd4j.createFromArray(state).reshape(graph().numEdges(), 2, L));
    }

    /** All messages back to zero (impossible labels keep minus infinity). */
    void resetMessages();

    /** {@code [V, L]}: sum over the edges and regions a containing i of lambda_{a->i}(y). */
    INDArray incomingMessageSums();

    @Override
    default void close() {}
}
