package org.structlr.api;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.RowWeights;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.FunctionSpec;

/**
 * Learns a CRF by the paper's alternating algorithm (docs/design.md §1): settings in a builder, then
 * {@link #train(CrfData)} gives a {@link Crf}. The function classes are registry names
 * ({@code zero, const, linear, mlp, boost, cnn}, or any registered class).
 * <pre>{@code
 *   Crf crf = CrfTrainer.builder().unary("linear").pairwise("linear").iterations(50).build().train(data);
 *   Crf deep = CrfTrainer.builder().unary("fcn").unaryOption("epochs", "2").pairwise("linear").build().train(images);
 *   Crf patches = CrfTrainer.builder().regions("patches2x2").iterations(30).build().train(images);
 * }</pre>
 */
public final class CrfTrainer {
    private final FunctionSpec unary, pairwise;
    private final LearnSettings settings;
    private final int threads;
    private final RowWeights weights;
    private final RegionLayout regions;

    private CrfTrainer(Builder b) {
        this.unary = FunctionSpec.unary(b.unary, b.unaryOptions);
        this.pairwise = FunctionSpec.pairwise(b.pairwise, b.pairwiseOptions);
        this.settings = new LearnSettings(b.iterations, b.eps, b.sweeps, b.evalSweeps, b.seed);
        this.threads = b.threads;
        RowWeights w = b.classWeights == null ? RowWeights.NONE : RowWeights.classes(b.classWeights);
        this.weights = w.withExamples(b.exampleWeights);
        this.regions = RegionLayout.of(b.regions);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Trains on {@code data.train()}; the test examples (if any) are evaluated after every iteration. */
    public Crf train(CrfData data) {
        return new Crf(Training.train(data.dataset, unary, pairwise, regions, settings, weights, threads, LearnListener.NONE, null, StateSink.NONE).model());
    }

    /** Settings with the paper's defaults: linear/linear, 100 iterations, eps 0.1, 25 sweeps, 50 evaluation sweeps, seed 1. */
    public static final class Builder {
        private String unary = "linear", pairwise = "linear";
        private int iterations = 100, sweeps = 25, evalSweeps = LearnSettings.AUTO_EVAL_SWEEPS, threads = 1;
        private double eps = 0.1;
        private long seed = 1;
        private final Map<String, String> unaryOptions = new LinkedHashMap<>(), pairwiseOptions = new LinkedHashMap<>();
        private String classWeights;
        private double[] exampleWeights;
        private String regions = "none";

        private Builder() {}

        /** The unary function class, by registered name. */
        public Builder unary(String name) { this.unary = Objects.requireNonNull(name); return this; }
        /** The pairwise function class, by registered name. */
        public Builder pairwise(String name) { this.pairwise = Objects.requireNonNull(name); return this; }
        /** An option the unary class declares ({@code structlr classes} lists them), as text: {@code unaryOption("epochs", "2")}. */
        public Builder unaryOption(String name, String value) {
            unaryOptions.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
            return this;
        }
        /** An option the pairwise class declares, as {@link #unaryOption}. */
        public Builder pairwiseOption(String name, String value) {
            pairwiseOptions.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
            return this;
        }
        public Builder iterations(int n) { this.iterations = n; return this; }
        /**
         * Factors over more than two pixels on every image beside the pairs: {@code "none"} (the
         * default), {@code "patches2x2"} or {@code "triplets"} (see {@link RegionLayout}); their
         * functions are of the pairwise class. The examples must be images.
         */
        public Builder regions(String layout) { this.regions = Objects.requireNonNull(layout); return this; }
        /** Class weights on the oracle rows: {@code "balanced"} or {@code "w0,w1,..."} (one per label; see {@link RowWeights}). */
        public Builder classWeights(String spec) { this.classWeights = spec; return this; }
        /** One weight per training example, in the data's order (weight k = k copies of the example). */
        public Builder exampleWeights(double... w) { this.exampleWeights = w == null ? null : w.clone(); return this; }
        /** Entropy smoothing of the LP relaxation. */
        public Builder eps(double eps) { this.eps = eps; return this; }
        /** Message-passing sweeps after each oracle fit. */
        public Builder sweeps(int n) { this.sweeps = n; return this; }
        /** Prediction sweeps per evaluation for the reported errors, warm-started (0: no errors; default {@link LearnSettings#AUTO_EVAL_SWEEPS}). */
        public Builder evalSweeps(int n) { this.evalSweeps = n; return this; }
        public Builder seed(long seed) { this.seed = seed; return this; }
        /** Threads of the oracles that use them (boost); 1 gives results independent of the machine. */
        public Builder threads(int n) { this.threads = n; return this; }

        /**
         * Checks the settings; IllegalArgumentException names the bad one (or lists the registered
         * classes, or the options a class declares).
         */
        public CrfTrainer build() {
            return new CrfTrainer(this);
        }
    }
}
