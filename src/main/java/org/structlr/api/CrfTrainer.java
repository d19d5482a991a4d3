package org.structlr.api;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.structlr.data.Dataset;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.learn.Checkpoint;
import org.structlr.learn.Checkpointer;
import org.structlr.learn.DataHashes;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.ResumeRefusedException;
import org.structlr.learn.RowWeights;
import org.structlr.learn.StateSink;
import org.structlr.learn.VoidForm;
import org.structlr.learn.Training;
import org.structlr.metrics.Validation;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.FunctionSpec;
import org.structlr.schedule.Schedules;

/**
 * Learns a CRF by the paper's alternating algorithm (docs/design.md §1): settings in a builder, then
 * {@link #train(CrfData)} gives a {@link Crf} whose {@link Crf#report()} is the run's
 * {@link TrainingReport} (learning curve, timings, validation). The function classes are registry
 * names ({@code zero, const, linear, mlp, boost, cnn, fcn}, or any registered class,
 * {@code structlr classes}); the builder has the settings of {@code structlr train}.
 * <pre>{@code
 *   CrfData data = CrfData.denoising(2, 2, 16, 1);
 *   Crf crf = CrfTrainer.builder().unary("linear").pairwise("linear").iterations(4)
 *           .schedule("extrapolate").engine("auto")
 *           .listener((row, total) -> System.out.println(row.iteration() + "/" + total + ": " + row.objective()))
 *           .build().train(data);
 *   System.out.println(crf.report().orElseThrow().last().testError());
 * }</pre>
 * Checkpoints and resuming (the result equals an uninterrupted run's):
 * <pre>{@code
 *   Path dir = java.nio.file.Files.createTempDirectory("structlr-checkpoints-");
 *   CrfData data = CrfData.denoising(2, 2, 16, 1);
 *   CrfTrainer.builder().iterations(2).checkpoint(dir, 1).build().train(data);   // stopped after 2 of 4
 *   Crf crf = CrfTrainer.resume(dir).iterations(4).build().train(data);         // iterations 3 and 4
 * }</pre>
 * A network of your own as the unary function (a DL4J ComputationGraph JSON or model zip, its first
 * 3 layers frozen): {@code CrfTrainer.builder().unaryNet(Path.of("unary.zip"), 3)}
 * (docs/guide/deep-networks.md). Factors over 2x2 patches beside the pairs:
 * {@code CrfTrainer.builder().regions("patches2x2")} (docs/guide/higher-order.md).
 */
public final class CrfTrainer {
    private final FunctionSpec unary, pairwise;
    private final LearnSettings settings;
    private final int threads;
    private final RowWeights weights;
    private final TrainingListener listener;
    private final Path checkpointDir;
    private final int checkpointEvery;
    private final Checkpoint from;
    /** The checkpoint folder {@link #from} was loaded from, which refusals to continue it name. */
    private final Path resumedFrom;
    private final int valEvery, patience, valSweeps;
    private final RegionLayout regions;

    private CrfTrainer(Builder b) {
        this.unary = spec(b.unary, true, b.unaryOptions, b.from == null ? null : b.from.unary());
        this.pairwise = spec(b.pairwise, false, b.pairwiseOptions, b.from == null ? null : b.from.pair());
        EngineChoice engine;
        try {
            engine = EngineChoice.parse(b.engine);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("engine: " + e.getMessage(), e);
        }
        int evalEvery = b.evalEvery == null ? 1 : b.evalEvery;
        this.settings = new LearnSettings(b.iterations, b.eps, b.sweeps, b.evalSweeps, evalEvery, b.seed, b.schedule, engine, b.voidForm);
        this.threads = b.threads;
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        RowWeights w = b.classWeights == null ? RowWeights.NONE : RowWeights.classes(b.classWeights);
        this.weights = w.withExamples(b.exampleWeights);
        this.listener = b.listener;
        // a resumed run goes on checkpointing into the folder it resumed from unless checkpoint(dir, every) names another
        this.checkpointDir = b.checkpointDir != null || b.from == null ? b.checkpointDir
                : Checkpointer.continuing(b.resumedFrom, b.from.state().iteration(), "checkpoint(dir, every)");
        this.checkpointEvery = b.checkpointEvery;
        if (checkpointEvery < 1) throw new IllegalArgumentException("checkpoint every " + checkpointEvery + " iterations: need at least 1");
        this.from = b.from;
        this.resumedFrom = b.resumedFrom;
        this.valEvery = b.valEvery;
        this.patience = b.patience;
        this.valSweeps = b.valSweeps;
        if (valEvery < 0) throw new IllegalArgumentException("validation every " + valEvery + " iterations: need at least 0");
        if (patience < 0) throw new IllegalArgumentException("patience must be at least 0, got " + patience);
        if (valSweeps < 1) throw new IllegalArgumentException("validation sweeps must be at least 1, got " + valSweeps);
        this.regions = RegionLayout.of(b.regions);
        if (from != null) checkResumable(from);
    }

    /** Settings with the paper's defaults ({@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The settings of the run saved in {@code checkpoint} (a folder {@link Builder#checkpoint} wrote
     * into, or one of its {@code iteration-NNNNNN} folders; the newest readable one), to continue
     * it: {@link Builder#iterations} sets the new total, and the listener, threads and a new
     * checkpoint folder may be given; changing any other setting is refused by
     * {@link Builder#build()} (it would silently change the run). Train on the same data. The run
     * goes on checkpointing into the folder it resumed from (when {@code checkpoint} is one
     * {@code iteration-NNNNNN} folder, the folder holding it), as often as the run it continues,
     * unless {@link Builder#checkpoint} names another folder or interval.
     *
     * @throws RuntimeException naming the file when the checkpoint is missing or damaged
     */
    public static Builder resume(Path checkpoint) {
        Checkpoint cp = Checkpoint.load(checkpoint);
        Builder b = new Builder();
        LearnSettings s = cp.settings();
        b.unary = cp.unaryKind();
        b.pairwise = cp.pairKind();
        b.iterations = s.iterations();
        b.eps = s.eps();
        b.sweeps = s.sweepsPerFit();
        b.evalSweeps = s.evalSweeps();
        b.evalEvery = s.evalEvery();
        b.seed = s.seed();
        b.schedule = s.schedule();
        b.engine = s.engine().label();
        b.voidForm = s.voidForm();
        b.threads = cp.threads();
        b.regions = cp.regions().label();
        b.resumedFrom = checkpoint;
        b.checkpointEvery = cp.interval() > 0 ? cp.interval() : Checkpointer.DEFAULT_EVERY;
        Object c = cp.weights().given().get("classWeights");
        b.classWeights = c == null ? null : c instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList()) : c.toString();
        Object e = cp.weights().given().get("exampleWeights");
        b.exampleWeights = e == null ? null : ((List<?>) e).stream().mapToDouble(x -> (Double) x).toArray();
        b.from = cp;
        return b;
    }

    /**
     * The class {@code name} with the options given; resuming the same class, on top of the
     * checkpoint's values ({@code resumed}), which decide whether a given option applies.
     */
    private static FunctionSpec spec(String name, boolean unary, Map<String, String> given, FunctionSpec resumed) {
        boolean same = resumed != null && resumed.name().equals(org.structlr.oracle.FunctionClasses.get(name).name());
        return FunctionSpec.of(name, unary, given, same ? resumed.options().texts() : Map.of());
    }

    private void checkResumable(Checkpoint cp) {
        List<String> differ = new ArrayList<>();
        if (!unary.equals(cp.unary())) differ.add("unary " + cp.unary() + ", not " + unary);
        if (!pairwise.equals(cp.pair())) differ.add("pairwise " + cp.pair() + ", not " + pairwise);
        LearnSettings theirs = cp.settings().withIterations(settings.iterations());
        if (!settings.equals(theirs)) differ.add("settings " + theirs + ", not " + settings);
        if (regions != cp.regions()) differ.add("regions " + cp.regions().label() + ", not " + regions.label());
        if (!weights.equals(cp.weights())) differ.add(cp.weights() + ", not " + weights);
        if (!differ.isEmpty()) {
            throw new IllegalArgumentException("the checkpoint was trained with " + String.join("; ", differ)
                    + ": resume it with only iterations, threads, listener or checkpoint changed, or start a new run");
        }
        if (settings.iterations() < cp.state().iteration()) {
            throw new IllegalArgumentException("iterations is " + settings.iterations() + " but the checkpoint is already at iteration "
                    + cp.state().iteration());
        }
    }

    /**
     * Trains on {@code data.train()}; the test examples (if any) are evaluated at the curve's
     * iterations, the val examples checked when {@link Builder#validation} asks. The model's
     * {@link Crf#report()} is the run's report.
     *
     * @throws RuntimeException with one message naming the problem: a function class that cannot
     *         read these features, an engine that cannot run these graphs, a checkpoint of other
     *         data, validation without val examples, ...
     */
    public Crf train(CrfData data) {
        Dataset ds = data.dataset;
        String hash = from != null || checkpointDir != null ? DataHashes.dataHash(ds) : null;
        String examplesHash = from != null || checkpointDir != null ? DataHashes.examplesHash(ds) : null;
        if (from != null) {
            // the data hash where the checkpoint has one, else the examples hash (a checkpoint written by the Spark learner)
            String ours = from.dataHash() != null ? hash : examplesHash, theirs = from.dataHash() != null ? from.dataHash() : from.examplesHash();
            if (theirs != null && !theirs.equals(ours)) {
                throw new IllegalArgumentException("not the data the checkpoint was trained on (hash " + ours.substring(0, 12)
                        + "..., the checkpoint's " + theirs.substring(0, Math.min(12, theirs.length())) + "...)");
            }
        }
        Checkpointer checkpoints = checkpointDir == null ? null
                : new Checkpointer(checkpointDir, checkpointEvery, unary, pairwise, settings, threads, hash, examplesHash);
        StateSink sink = checkpoints == null ? StateSink.NONE : from == null ? checkpoints : checkpoints.resuming(resumedFrom, from.state().iteration());
        LearnListener told = new LearnListener() {
            @Override
            public void onIteration(IterationRecord record, int total) {
                listener.onIteration(TrainingReport.Iteration.of(record), total);
            }
        };
        if (valEvery > 0 && ds.val().isEmpty()) {
            throw new IllegalArgumentException("validation needs val examples (CrfData.of(train, val, test) or a val/ folder); this data has none");
        }
        try (Validation validation = valEvery == 0 ? null : new Validation(ds.val(), ds.numLabels(),
                Training.pairTypeNames(ds.numPairTypes()), regions, settings.eps(), valEvery, patience, valSweeps)) {
            LearnListener l = validation == null ? told
                    : validation.around(told, settings.iterations(), c -> listener.onValidation(TrainingReport.Check.of(c)));
            Training.Outcome out;
            try {
                out = Training.train(ds, unary, pairwise, regions, settings, weights, threads, l, from == null ? null : from.state(), sink);
            } catch (ResumeRefusedException e) {
                throw e.naming(resumedFrom);
            }
            List<TrainingReport.Iteration> curve = out.curve().stream().map(TrainingReport.Iteration::of).toList();
            int last = curve.isEmpty() ? 0 : curve.get(curve.size() - 1).iteration();
            if (validation == null || curve.isEmpty()) {
                return new Crf(out.model(), new TrainingReport(curve, out.fitSeconds(), out.passingSeconds(), out.evalSeconds(), List.of(), last));
            }
            Validation.Check c = validation.checkLast(last, out.model());
            if (c != null) listener.onValidation(TrainingReport.Check.of(c));
            List<TrainingReport.Check> checks = validation.history().stream().map(TrainingReport.Check::of).toList();
            return new Crf(validation.keepBest(out.model(), last), new TrainingReport(curve, out.fitSeconds(), out.passingSeconds(),
                    out.evalSeconds(), checks, validation.best().iteration()));
        }
    }

    /**
     * Settings, each with {@code structlr train}'s default except the curve: linear/linear, 100
     * iterations, eps 0.1, 25 sweeps per fit, evaluation sweeps auto, every iteration evaluated,
     * schedule paper, engine auto, seed 1, 1 thread, no validation, no checkpoints.
     */
    public static final class Builder {
        private String unary = "linear", pairwise = "linear";
        private int iterations = 100, sweeps = 25, evalSweeps = LearnSettings.AUTO_EVAL_SWEEPS, threads = 1;
        private Integer evalEvery;
        private double eps = 0.1;
        private long seed = 1;
        private String schedule = Schedules.PAPER, engine = "auto";
        private final Map<String, String> unaryOptions = new LinkedHashMap<>(), pairwiseOptions = new LinkedHashMap<>();
        private String classWeights;
        private double[] exampleWeights;
        private VoidForm voidForm = LearnSettings.DEFAULT_VOID_FORM;
        private TrainingListener listener = TrainingListener.NONE;
        private Path checkpointDir;
        private int checkpointEvery = Checkpointer.DEFAULT_EVERY;
        private Checkpoint from;
        private Path resumedFrom;
        private int valEvery, patience, valSweeps = 100;
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
        /**
         * Your own unary network (the class becomes {@code fcn}): a DL4J ComputationGraph configuration
         * (JSON) or model zip with input {@code [B, D, H, W]} and output {@code [B, L, H, W]}, e.g. an
         * earlier export's unary.zip; {@code freeze} first layers keep their parameters. The file is
         * read and checked here (IllegalArgumentException naming it); the model records its SHA-256.
         */
        public Builder unaryNet(Path file, int freeze) {
            this.unary = "fcn";
            unaryOptions.put("net", file.toString());
            unaryOptions.put("freeze", String.valueOf(freeze));
            return this;
        }
        /** Your own pairwise network, as {@link #unaryNet}, output {@code [B, 2 L L, H, W]} (right edge, then down edge). */
        public Builder pairwiseNet(Path file, int freeze) {
            this.pairwise = "fcn";
            pairwiseOptions.put("net", file.toString());
            pairwiseOptions.put("freeze", String.valueOf(freeze));
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
        /** How training treats void (unlabelled) variables: {@code "simple"} or {@code "clamped"} (see {@link VoidForm}). */
        public Builder voidForm(String name) { this.voidForm = VoidForm.parse(name); return this; }
        /** Entropy smoothing of the LP relaxation. */
        public Builder eps(double eps) { this.eps = eps; return this; }
        /** Message-passing sweeps after each oracle fit. */
        public Builder sweeps(int n) { this.sweeps = n; return this; }
        /** Prediction sweeps per evaluation for the reported errors, warm-started (0: no errors; default {@link LearnSettings#AUTO_EVAL_SWEEPS}, auto). */
        public Builder evalSweeps(int n) { this.evalSweeps = n; return this; }
        /** Evaluate (one curve row, one {@link TrainingListener} call) after iteration 1, every {@code k}-th and the last (default 1: every iteration). */
        public Builder evalEvery(int k) { this.evalEvery = k; return this; }
        /**
         * How much message passing follows each fit: {@code paper} (the default: {@link #sweeps} after
         * every fit), {@code adaptive}, {@code extrapolate} or {@code adaptive-extrapolate}
         * ({@code structlr train --help} says what each does).
         */
        public Builder schedule(String name) { this.schedule = Objects.requireNonNull(name); return this; }
        /** The inference engine: {@code auto} (the default), {@code fused}, {@code nd4j} or {@code loop}; a named one that cannot run the graphs is an error. */
        public Builder engine(String name) { this.engine = Objects.requireNonNull(name); return this; }
        public Builder seed(long seed) { this.seed = seed; return this; }
        /** Threads of the oracles that use them (boost); 1 gives results independent of the machine. */
        public Builder threads(int n) { this.threads = n; return this; }
        /** Told after every evaluated iteration and every validation check. */
        public Builder listener(TrainingListener l) { this.listener = Objects.requireNonNull(l); return this; }
        /**
         * Saves the learner's whole state into {@code dir} after every {@code every} iterations and
         * after the last (one complete {@code iteration-NNNNNN} folder at a time), for {@link CrfTrainer#resume}.
         */
        public Builder checkpoint(Path dir, int every) {
            this.checkpointDir = Objects.requireNonNull(dir);
            this.checkpointEvery = every;
            return this;
        }
        /**
         * Checks the functions on the data's val examples after every {@code every}-th iteration
         * and the last (pixel accuracy and mean IoU, void left out) and keeps the functions of the
         * check with the highest val mean IoU as the model (ties: the earlier); stops learning after
         * {@code patience} checks in a row without a better one (0: never). {@code every} 0: no validation.
         */
        public Builder validation(int every, int patience) {
            this.valEvery = every;
            this.patience = patience;
            return this;
        }
        /** Most message-passing sweeps per validation check, warm-started from the previous check (default 100). */
        public Builder validationSweeps(int n) { this.valSweeps = n; return this; }

        /**
         * Checks the settings; IllegalArgumentException names the bad one (or lists the registered
         * classes, or the options a class declares, or what differs from a checkpoint resumed).
         */
        public CrfTrainer build() {
            return new CrfTrainer(this);
        }
    }
}
