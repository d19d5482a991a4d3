package org.structlr.oracle.fcn;

import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.structlr.oracle.nn.NetworkCopies;

/**
 * The step policy of the fcn fits: a fit is a descent step. Measured on the horses (fcn, mlp),
 * 36 x 48: with every fit kept, the objective R fell to 0.166 by iteration 13 and then rose to 0.455
 * by iteration 30, because a few epochs of Adam from the previous network can end at a higher biased
 * loss than where they started (the step is too long once the messages settle). At fixed messages
 * R = eps * loss + const (docs/design.md §1), so a fit that lowers the loss lowers R. Here: train; keep the
 * network only if {@code loss(new) <= loss(previous)} on this problem; otherwise retry from the
 * previous network with half the learning rate, at most {@link #MAX_HALVINGS} times, and then keep the
 * previous network. The halved rate stays in the network's configuration, so later fits continue
 * with it, and a fit accepted at its first try regrows it by {@code recovery} (up to the configured
 * rate): the step shrinks only where it had to and for as long as it has to. Cost: one scoring pass
 * per try (a forward pass, about a twelfth of a 4-epoch fit), and a full fit per retry.
 */
final class DescentSteps {

    /** Halvings of the step tried per call before the previous function is kept. */
    static final int MAX_HALVINGS = 2;

    private final double configuredRate;
    private final double recovery;

    DescentSteps(double configuredRate, double recovery) {
        this.configuredRate = configuredRate;
        this.recovery = recovery;
    }

    /**
     * The network a fit keeps: {@code train} applied to a copy of {@code start} (at most
     * {@link #MAX_HALVINGS} + 1 tries), or {@code start} itself with the smaller step when every try
     * raised {@code loss} above {@code lossBefore}.
     */
    ComputationGraph descend(ComputationGraph start, double lossBefore, Consumer<ComputationGraph> train,
                             ToDoubleFunction<ComputationGraph> loss) {
        double rate = FcnGraph.learningRate(start);
        for (int attempt = 0; attempt <= MAX_HALVINGS; attempt++) {
            ComputationGraph net = NetworkCopies.copy(start);
            if (attempt > 0) net.setLearningRate(rate);
            train.accept(net);
            if (loss.applyAsDouble(net) <= lossBefore) {
                if (attempt == 0 && recovered(rate) != rate) net.setLearningRate(recovered(rate));
                return net;
            }
            rate /= 2;
        }
        // every try raised the loss: keep the previous network, with the smaller step for next time
        start.setLearningRate(rate);
        return start;
    }

    /** The step after a fit accepted at its first try: regrown by {@code recovery}, at most the configured rate. */
    double recovered(double rate) {
        return recovery > 1 && rate < configuredRate ? Math.min(configuredRate, rate * recovery) : rate;
    }
}
