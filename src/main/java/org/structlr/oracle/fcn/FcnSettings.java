package org.structlr.oracle.fcn;

import java.io.Serializable;
import java.util.Objects;

/**
 * Every setting of an {@link FcnOracle}: its role, the network ({@link FcnArchitecture}) and how a fit
 * trains it. Immutable; made by a {@link Builder} ({@link #builder}, {@link #toBuilder()}), which
 * checks the values.
 *
 * @param pairwise     scores per edge (two groups per pixel: right and down edge) instead of per pixel
 * @param architecture the network's layers
 * @param epochsPerFit passes over the images per oracle call
 * @param learningRate Adam's learning rate (the descent check may halve it; see {@link FcnOracle})
 * @param seed         initial weights and image order
 * @param batchImages  images of one size per mini-batch (a ragged remainder of a size goes in a smaller batch)
 * @param descentCheck keep a fit only if it lowers the problem's loss; off only to measure what it changes
 * @param weightDecay  decoupled weight decay per Adam step (times the step), 0 = none
 * @param recovery     after an accepted fit the step grows by this factor, up to the configured rate (1 = a halved step stays halved)
 */
public record FcnSettings(boolean pairwise, FcnArchitecture architecture, int epochsPerFit, double learningRate, long seed,
                          int batchImages, boolean descentCheck, double weightDecay, double recovery) implements Serializable {

    /**
     * Defaults for 8-image mini-batches (horses, 36 x 48, busy machine, iteration 1 of (fcn, mlp):
     * Adam 0.01 gave objective 0.478 / test error 0.172, Adam 0.02 gave 0.424 / 0.122, both 4 epochs
     * per fit; one image per step with 2 epochs and 0.01, the first defaults, gave 0.312 / 0.115).
     * Batches of 8 save little CPU (one epoch over the 164 images: 8.0 s against 8.7 s one at a
     * time) but make the fit steps, and so Adam's, 8 times fewer; more epochs and a larger step
     * make up for that.
     */
    public static final int DEFAULT_EPOCHS = 4;
    public static final double DEFAULT_LEARNING_RATE = 2e-2;
    public static final int DEFAULT_BATCH = 8;
    /**
     * After a fit accepted at its first try a halved step doubles again (up to the configured rate).
     * Measured on the horses (fcn, mlp), 36 x 48, 30 iterations (busy machine): test error 0.0607 and
     * R 0.148 with 2, against 0.0627 and R 0.160 with 1 (a halved step stays halved), and 0.0620
     * with R 0.455 (rising from iteration 13) without the descent check.
     */
    public static final double DEFAULT_RECOVERY = 2;
    static final long DEFAULT_SEED = 12345L;

    public FcnSettings {
        Objects.requireNonNull(architecture, "architecture");
        if (epochsPerFit < 1 || !(learningRate > 0) || batchImages < 1) {
            throw new IllegalArgumentException("fcn oracle: need epochsPerFit, batch >= 1 and learning rate > 0");
        }
        if (!(weightDecay >= 0) || !(recovery >= 1)) {
            throw new IllegalArgumentException("fcn oracle: weight decay must be >= 0 and step regrowth (recovery) >= 1; got "
                    + weightDecay + " and " + recovery);
        }
    }

    /** The defaults for a pairwise ({@code pairwise}) or unary type. */
    public static Builder builder(boolean pairwise) {
        return new Builder(pairwise);
    }

    /** A builder holding these settings. */
    public Builder toBuilder() {
        Builder b = new Builder(pairwise);
        if (architecture instanceof DilatedConvolutions d) {
            b.width = d.width();
            b.dilations = d.dilations();
        } else {
            b.architecture = architecture;
        }
        b.epochs = epochsPerFit;
        b.learningRate = learningRate;
        b.seed = seed;
        b.batch = batchImages;
        b.descentCheck = descentCheck;
        b.weightDecay = weightDecay;
        b.recovery = recovery;
        return b;
    }

    /** Groups of C scores per pixel: 2 (right edge, down edge) for pairwise, else 1. */
    public int groups() {
        return pairwise ? 2 : 1;
    }

    /** The settings in words (what {@link FcnOracle#describe()} says). */
    public String describe() {
        return "fcn " + (pairwise ? "pairwise" : "unary") + " (" + architecture.describe() + "; Adam " + learningRate + ", "
                + (batchImages == 1 ? "one image" : "up to " + batchImages + " same-size images")
                + " per step, " + epochsPerFit + " epochs per fit" + (descentCheck ? ", a fit kept only if it lowers the loss" : "")
                + (recovery > 1 ? ", step regrown x" + recovery + " after an accepted fit" : "")
                + (weightDecay > 0 ? ", weight decay " + weightDecay : "") + ")";
    }

    /** Settings under construction; {@link #build} checks them. */
    public static final class Builder {
        private final boolean pairwise;
        private FcnArchitecture architecture;
        private int width = DilatedConvolutions.DEFAULT_WIDTH;
        private int[] dilations = DilatedConvolutions.DEFAULT_DILATIONS;
        private int epochs = DEFAULT_EPOCHS;
        private double learningRate = DEFAULT_LEARNING_RATE;
        private long seed = DEFAULT_SEED;
        private int batch = DEFAULT_BATCH;
        private boolean descentCheck = true;
        private double weightDecay;
        private double recovery = DEFAULT_RECOVERY;

        private Builder(boolean pairwise) {
            this.pairwise = pairwise;
        }

        /** The network's layers (default: {@link DilatedConvolutions} of {@link #width} and {@link #dilations}). */
        public Builder architecture(FcnArchitecture a) { this.architecture = Objects.requireNonNull(a); return this; }
        /** Channels of the built-in architecture's hidden convolutions. */
        public Builder width(int channels) { this.width = channels; this.architecture = null; return this; }
        /** One hidden convolution of the built-in architecture per dilation. */
        public Builder dilations(int... d) { this.dilations = d.clone(); this.architecture = null; return this; }
        public Builder epochs(int n) { this.epochs = n; return this; }
        public Builder learningRate(double rate) { this.learningRate = rate; return this; }
        public Builder seed(long s) { this.seed = s; return this; }
        /** Images of one size per mini-batch step. */
        public Builder batch(int images) { this.batch = images; return this; }
        /** With {@code false}, every fit is kept even where it raises the problem's loss (the first wave's behaviour). */
        public Builder descentCheck(boolean on) { this.descentCheck = on; return this; }
        /** Decoupled weight decay {@code coefficient} (DL4J's {@code weightDecay}, scaled by the step) on every layer. */
        public Builder weightDecay(double coefficient) { this.weightDecay = coefficient; return this; }
        /** After a fit the descent check accepted, the step grows by {@code factor} (up to the configured rate). */
        public Builder recovery(double factor) { this.recovery = factor; return this; }

        /** @throws IllegalArgumentException naming the bad setting */
        public FcnSettings build() {
            FcnArchitecture a = architecture != null ? architecture : new DilatedConvolutions(width, dilations);
            return new FcnSettings(pairwise, a, epochs, learningRate, seed, batch, descentCheck, weightDecay, recovery);
        }
    }
}
