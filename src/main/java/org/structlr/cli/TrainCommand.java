package org.structlr.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.structlr.learn.DataHashes;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.RemoteFiles;
import org.structlr.learn.Checkpoint;
import org.structlr.learn.Checkpointer;
import org.structlr.learn.ClusterTraining;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.LearningReport;
import org.structlr.learn.ResumeRefusedException;
import org.structlr.learn.RowWeights;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.metrics.ConfusionMatrix;
import org.structlr.metrics.Evaluation;
import org.structlr.metrics.Validation;
import org.structlr.model.CrfModel;
import org.structlr.oracle.FunctionSpec;
import org.structlr.viz.ConfusionFigure;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "train", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Train a CRF on an .npz data set (DIR/train, DIR/test) by alternating oracle fits and message passing.")
final class TrainCommand implements Callable<Integer> {
    @Option(names = "--data", required = true, paramLabel = "DIR", converter = Location.Converter.class,
            description = "Data set folder with train/ and test/ .npz files (a path or a file: URI; in the -Pspark build any Hadoop URI)."
                    + " With --spark the executors read it themselves: it must be where every machine sees it.")
    Location data;

    @Option(names = "--unary", defaultValue = "linear", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "KIND",
            description = "Unary function class, any registered name: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    String unary;

    @Option(names = "--pairwise", defaultValue = "linear", converter = FunctionClassConverter.class, completionCandidates = FunctionClassConverter.Names.class, paramLabel = "KIND",
            description = "Pairwise function class, any registered name: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    String pairwise;

    @Mixin
    ClassOptionsOptions classOptions;

    @Option(names = "--regions", defaultValue = "none", paramLabel = "LAYOUT", converter = RegionLayoutConverter.class,
            description = "Factors over more than two pixels on every image, beside the pairs: none (the paper's pairs only), patches2x2"
                    + " (one factor over every 2x2 patch, L^4 joint labels) or triplets (every 3 pixels in a row and in a column, L^3);"
                    + " their functions are of the --pairwise class, on the features of the region's edges side by side."
                    + " Recorded in the model; predict and evaluate use them (default: ${DEFAULT-VALUE}).")
    org.structlr.model.RegionLayout regions;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "100",
            description = "Learning iterations, each the oracle fits of every factor type, then message passing (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Mixin
    LearningOptions learning;

    @Mixin
    ScheduleOptions schedule;


    @Mixin
    EngineOptions engine;

    @Option(names = "--class-weights", paramLabel = "balanced|W0,W1,...",
            description = "Weight the oracle rows by class: 'balanced' (N / (K N_y) from the training labels) or one weight per label."
                    + " A pairwise row gets the mean of its two ends' weights. Recorded in the model (settings.weights).")
    String classWeights;

    @Option(names = "--example-weights", paramLabel = "FILE",
            description = "Weight training examples: lines 'NAME WEIGHT' (NAME a file of DIR/train, e.g. 003.npz; '#' starts a comment);"
                    + " examples not listed weigh 1. Weight k counts as k copies of the example.")
    Path exampleWeights;

    @Option(names = "--output", paramLabel = "MODEL", converter = PathConverter.class,
            description = "Folder to save the trained model in (a path or a file: URI; in the -Pspark build any Hadoop URI);"
                    + " a model folder already there is replaced once the new one is complete.")
    Path output;

    @Option(names = "--report", paramLabel = "FILE.json",
            description = "Learning curve and final errors as JSON, with the test (and val) metrics of the trained model: pixel accuracy,"
                    + " per-class IoU, mean IoU, confusion matrix (void left out); FILE-confusion-SPLIT.png beside it.")
    Path report;

    @Option(names = "--csv", paramLabel = "FILE.csv", description = "Learning curve as CSV.")
    Path csv;

    @Option(names = "--val-every", paramLabel = "K", defaultValue = "0",
            description = "Check the functions on the data set's val/ examples after every K-th iteration and the last (pixel accuracy,"
                    + " mean IoU, void left out: one line each, and in --report) and keep the functions of the check with the highest val"
                    + " mean IoU as the model (ties: the earlier); 0 = no validation, the last functions (default: ${DEFAULT-VALUE}).")
    int valEvery;

    @Option(names = "--patience", paramLabel = "P", defaultValue = "0",
            description = "With --val-every: stop learning after P checks in a row without a higher val mean IoU; 0 = never (default: ${DEFAULT-VALUE}).")
    int patience;

    @Option(names = "--val-sweeps", paramLabel = "N", defaultValue = "100",
            description = "With --val-every: most message-passing sweeps per check, warm-started from the previous check's messages"
                    + " (stops earlier at a duality gap of 1e-5 per variable) (default: ${DEFAULT-VALUE}).")
    int valSweeps;

    @Option(names = "--checkpoint", paramLabel = "DIR", converter = Location.CheckpointConverter.class,
            description = "Save the learner's whole state into this folder after every --checkpoint-every iterations and after the last"
                    + " (one complete iteration-NNNNNN folder at a time; the two newest are kept), for --resume. The folder holds"
                    + " this run's checkpoints only: an earlier run's there are deleted once this run's first is in place."
                    + " With --resume: the folder resumed from unless given. In the -Pspark build also a Hadoop URI.")
    Location checkpoint;

    @Option(names = "--checkpoint-every", paramLabel = "N", defaultValue = "" + Checkpointer.DEFAULT_EVERY,
            description = "Iterations between checkpoints (default: ${DEFAULT-VALUE}; with --resume: the checkpoint's).")
    int checkpointEvery;

    @Option(names = "--resume", paramLabel = "DIR", converter = Location.CheckpointConverter.class,
            description = "Continue the run saved in this checkpoint folder (its newest checkpoint; when that is damaged, the one before,"
                    + " with a warning), or in one of its iteration-NNNNNN folders, on the same --data: the classes and their options,"
                    + " --regions, eps, sweeps, evaluation settings, --void-form, schedule, engine, seed and weights are the checkpoint's"
                    + " (giving a different one is an error), and so are the threads unless --threads is given; --iterations sets the"
                    + " new total (default: the checkpoint's)."
                    + " The run goes on checkpointing into this folder as often as the run it continues (--checkpoint and"
                    + " --checkpoint-every change that). The result equals an uninterrupted run's with the same options."
                    + " In the -Pspark build also a Hadoop URI.")
    Location resume;

    @Option(names = "--spark", paramLabel = "MASTER",
            description = "Train on Apache Spark: local[N] runs an embedded Spark with N threads, spark://HOST:PORT a standalone cluster"
                    + " (or run the -Pspark build's jar with spark-submit and give its master). Only in the -Pspark build;"
                    + " the same numbers as without it.")
    String spark;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    /** A line on standard error that is not an error (the run goes on), printed even with --quiet. */
    private void warn(String line) {
        spec.commandLine().getErr().println("warning: " + Staging.unstage(line));
    }

    @Override
    public Integer call() throws Exception {
        Checkpoint from = resume == null ? null
                : resume.remote() ? Checkpointer.load(resume.uri(), RemoteFiles.find().orElseThrow(), this::warn) : Checkpoint.load(resume.local(), this::warn);
        if (from != null) adoptCheckpoint(from);
        LearnSettings settings = schedule.apply(learning.settings(iterations)).withEngine(engine.engine);
        if (from != null && iterations < from.state().iteration()) {
            throw new BadInputException("option '--iterations' is " + iterations + " but the checkpoint is already at iteration " + from.state().iteration());
        }
        if (checkpointEvery < 1) throw new BadInputException("option '--checkpoint-every' must be at least 1, got " + checkpointEvery);
        if (from != null) continueCheckpoints(from);
        if (checkpoint == null && isGiven("--checkpoint-every")) throw new BadInputException("option '--checkpoint-every' needs --checkpoint or --resume");
        checkValidationOptions(cluster());
        // Refuse unwritable outputs before training, so a failure never leaves some outputs behind.
        CliChecks.output("--output", output, true);
        CliChecks.output("--report", report, false);
        CliChecks.output("--csv", csv, false);
        if (checkpoint != null && checkpoint.remote()) {
            Checkpointer.checkWritable(checkpoint.uri(), RemoteFiles.find().orElseThrow());
        } else if (checkpoint != null) {
            CliChecks.output("--checkpoint", checkpoint.local(), true);
            Checkpointer.checkWritable(checkpoint.local());
        }
        if (output != null && Files.isDirectory(output) && !Files.isRegularFile(output.resolve(CrfModel.MANIFEST))) {
            throw new BadInputException(output, "cannot write --output: exists and is not a structlr model folder; not overwriting it");
        }
        if (spark != null && engine.engine != org.structlr.inference.engines.EngineChoice.AUTO) {
            throw new BadInputException("option '--engine " + engine.engine + "' does not go with --spark yet: the Spark learner runs"
                    + " --engine auto; train without --spark to name an engine");
        }
        // resumed: the options given on top of the checkpoint's, which decide whether a given one applies
        FunctionSpec unarySpec = from == null ? classOptions.unary(unary) : classOptions.unary(from.unary()),
                pairSpec = from == null ? classOptions.pairwise(pairwise) : classOptions.pairwise(from.pair());
        if (from != null) {
            unarySpec = agreeOptions("--unary-option", classOptions.unaryGiven(), unarySpec, from.unary());
            pairSpec = agreeOptions("--pairwise-option", classOptions.pairwiseGiven(), pairSpec, from.pair());
        }
        ClusterTraining cluster = cluster();
        checkRegionOptions(from, cluster);
        int threads = common.apply();
        Training.Outcome out;
        boolean weighted = classWeights != null || exampleWeights != null || (from != null && from.weights().any());
        if (weighted && cluster != null) {
            throw new BadInputException("options '--class-weights' and '--example-weights' do not work with --spark yet (train without --spark"
                    + (classWeights == null && exampleWeights == null ? "; the checkpoint " + resume + " was trained with them" : "") + ")");
        }
        try {
            if (cluster == null || !executorsRead()) {
                Dataset ds = Dataset.load(data.staged("--data"));
                reportData = ds;
                Training.checkApplicable(ds, unary, pairwise);
                String trainSplit = ds.root().map(r -> r.resolve("train").toString()).orElse("train");
                for (String w : Training.unfittedPairTypes(ds, settings.voidForm())) warn(trainSplit + ": " + w);
                RowWeights weights = weights(ds, from);
                String hash = DataHashes.dataHash(ds);
                // the examples hash only where a checkpoint may be resumed on Spark (which cannot compute the data hash)
                String examplesHash = from != null || checkpoint != null ? DataHashes.examplesHash(ds) : null;
                if (from != null) checkSameData(from, hash, examplesHash);
                StateSink sink = checkpointer(unarySpec, pairSpec, settings, threads, hash, examplesHash, from);
                try (TrainingProgress progress = progress(from);
                     Validation validation = valEvery == 0 ? null : validation(ds, settings)) {
                    LearnListener listener = validation == null ? progress : validation.around(progress, iterations, this::printCheck);
                    out = cluster == null ? Training.train(ds, unarySpec, pairSpec, regions, settings, weights, threads, listener, from == null ? null : from.state(), sink)
                            : cluster.train(spark, ds, unarySpec, pairSpec, settings, threads, listener, from == null ? null : from.state(), sink);
                    if (validation != null) out = keepBest(validation, out);
                }
            } else {
                // the driver lists the data set; the executors read and check their own examples
                try (ClusterTraining.Session session = cluster.session(spark)) {
                    ClusterTraining.ClusterDataset ds = session.read(data.forCluster());
                    Training.checkApplicable(ds.summary(), unary, pairwise);
                    if (from != null) checkSameData(from, null, ds.examplesHash());
                    StateSink sink = checkpointer(unarySpec, pairSpec, settings, threads, null, ds.examplesHash(), from);
                    try (TrainingProgress progress = progress(from)) {
                        out = session.train(ds, unarySpec, pairSpec, settings, threads, progress, from == null ? null : from.state(), sink);
                    }
                }
            }
        } catch (ResumeRefusedException e) {
            throw e.naming(resume);   // the learner's own refusal, with the checkpoint folder named as the checks above name it
        }
        Map<String, ConfusionMatrix> metrics = report != null && reportData != null
                ? Evaluation.splits(out.model(), reportData, List.of("test", "val")) : Map.of();
        Map<String, Object> extra = new java.util.LinkedHashMap<>();
        if (!metrics.isEmpty()) {
            extra.put("classes", out.model().classes().toMap());
            extra.put("metrics", Evaluation.toMap(metrics, out.model().classes()));
        }
        if (validationRows != null) extra.put("validation", validationRows);
        write(out, output, report, csv, spec.commandLine().getOut(), extra);
        if (!metrics.isEmpty()) {
            ConfusionFigure.writeBeside(report, "train", metrics, out.model().classes());
            for (Map.Entry<String, ConfusionMatrix> e : metrics.entrySet()) {
                spec.commandLine().getOut().printf(java.util.Locale.ROOT, "%s: pixel accuracy %.4f  mean IoU %.4f (void left out)%n",
                        e.getKey(), e.getValue().pixelAccuracy(), e.getValue().meanIou());
            }
            spec.commandLine().getOut().flush();
        }
        return Main.EXIT_OK;
    }

    /** What region factors do not do yet, refused before any work: Spark (its partitions hold no region factors). */
    private void checkRegionOptions(Checkpoint from, ClusterTraining cluster) {
        if (regions == org.structlr.model.RegionLayout.NONE) return;
        String r = "option '--regions " + regions.label() + "'";
        if (cluster != null) throw new BadInputException(r + " does not work with --spark yet (train without --spark)");
    }

    private ClusterTraining cluster() {
        return spark == null ? null : ClusterTraining.find("--spark");
    }

    private void checkValidationOptions(ClusterTraining cluster) {
        if (valEvery < 0) throw new BadInputException("option '--val-every' must be at least 0, got " + valEvery);
        if (patience < 0) throw new BadInputException("option '--patience' must be at least 0, got " + patience);
        if (valSweeps < 1) throw new BadInputException("option '--val-sweeps' must be at least 1, got " + valSweeps);
        if (valEvery == 0 && (isGiven("--patience") || isGiven("--val-sweeps"))) {
            throw new BadInputException("options '--patience' and '--val-sweeps' need --val-every");
        }
        if (valEvery > 0 && cluster != null && executorsRead()) {
            throw new BadInputException("option '--val-every' with --spark needs the data set read on this machine"
                    + " (--conf " + READ_DATA + "=driver): validation runs here");
        }
    }

    /** The validation of this run, on the data set's val examples. */
    private Validation validation(Dataset ds, LearnSettings settings) {
        if (ds.val().isEmpty()) throw new BadInputException(data + ": option '--val-every' needs val examples (a val/ folder), this data set has none");
        try {
            return new Validation(ds.val(), ds.numLabels(), Training.pairTypeNames(ds.numPairTypes()), regions, settings.eps(), valEvery, patience, valSweeps);
        } catch (IllegalArgumentException e) {
            // the options were checked above: what Validation refuses is the val split (e.g. void everywhere), named by its folder
            throw new BadInputException(ds.root().map(r -> r.resolve("val").toString()).orElse("val") + ": " + e.getMessage());
        }
    }

    /** One line per validation check (standard output: the progress bar is on standard error). */
    private void printCheck(Validation.Check c) {
        spec.commandLine().getOut().printf(java.util.Locale.ROOT, "val: iteration %d  pixel accuracy %.4f  mean IoU %.4f%s%s (%.1f s)%n",
                c.iteration(), c.confusion().pixelAccuracy(), c.meanIou(), c.best() ? "  best" : "",
                c.stop() ? "  stopping: " + patience + " checks without a better mean IoU" : "", c.seconds());
        spec.commandLine().getOut().flush();
    }

    /** The run's outcome with the best check's functions as the model (the last iteration checked too). */
    private Training.Outcome keepBest(Validation validation, Training.Outcome out) {
        int last = out.curve().get(out.curve().size() - 1).iteration();
        Validation.Check c = validation.checkLast(last, out.model());
        if (c != null) printCheck(c);
        validationRows = validation.toRows();
        Validation.Check best = validation.best();
        spec.commandLine().getOut().printf(java.util.Locale.ROOT, "validation: kept the functions of iteration %d (val mean IoU %.4f) of %d learned%n",
                best.iteration(), best.meanIou(), last);
        return new Training.Outcome(validation.keepBest(out.model(), last), out.curve(), out.fitSeconds(), out.passingSeconds(), out.evalSeconds());
    }

    /** The validation checks, for the report (null without validation). */
    private java.util.List<Map<String, Object>> validationRows;

    /**
     * The data set read on this machine, whose test and val metrics (pixel accuracy, per-class IoU,
     * mean IoU, confusion matrix; {@link Evaluation}) go into the report; null when Spark executors
     * read it (the report then has the curve only).
     */
    private Dataset reportData;

    /** The Spark property that says who reads the data set with --spark: the executors (default) or this machine (the driver). */
    static final String READ_DATA = "spark.structlr.readData";

    /**
     * Whether the executors read the data set (the default), or this machine reads it and ships the
     * examples ({@code spark.structlr.readData=driver}: for data only the driver sees, e.g. a local
     * folder the workers do not mount). Read from the JVM's properties, where spark-submit puts
     * {@code --conf} settings.
     */
    private static boolean executorsRead() {
        String v = System.getProperty(READ_DATA, "executors");
        if (v.equals("executors")) return true;
        if (v.equals("driver")) return false;
        throw new BadInputException(READ_DATA + ": '" + v + "' is neither 'executors' nor 'driver'");
    }

    /**
     * The class and example weights of the options ({@link RowWeights#NONE} without them); resuming, the
     * checkpoint's, which options given must equal (other weights would silently change the run).
     */
    private RowWeights weights(Dataset ds, Checkpoint from) {
        RowWeights given = optionWeights(ds);
        if (from == null || (classWeights == null && exampleWeights == null)) return from == null ? given : from.weights();
        if (!given.equals(from.weights())) {
            throw new BadInputException(resume + ": the checkpoint was trained with " + from.weights() + ", not " + given
                    + "; resume it without --class-weights/--example-weights (it keeps its own) or start a new run");
        }
        return given;
    }

    private RowWeights optionWeights(Dataset ds) {
        RowWeights w;
        try {
            w = RowWeights.classes(classWeights);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("option '--class-weights': " + e.getMessage());
        }
        try {
            w.checkLabels(ds.numLabels());
        } catch (IllegalArgumentException e) {
            throw new BadInputException("option '--class-weights': " + e.getMessage());
        }
        return exampleWeights == null ? w : w.withExamples(ExampleWeightsFile.read(exampleWeights, ds.train()));
    }

    private TrainingProgress progress(Checkpoint from) {
        TrainingProgress progress = new TrainingProgress("train " + unary + "/" + pairwise, iterations, common.quiet);
        if (from != null) progress.skip(from.state().iteration());
        return progress;
    }

    /** The checkpoints of this run; resumed, they continue the checkpoint {@code from} when it is in their folder ({@link Checkpointer#resuming}). */
    private StateSink checkpointer(FunctionSpec unarySpec, FunctionSpec pairSpec, LearnSettings settings, int threads, String dataHash,
                                   String examplesHash, Checkpoint from) {
        if (checkpoint == null) return StateSink.NONE;
        Checkpointer c = checkpoint.remote()
                ? Checkpointer.remote(checkpoint.uri(), RemoteFiles.find().orElseThrow(), checkpointEvery, unarySpec, pairSpec, settings, threads,
                        dataHash, examplesHash)
                : new Checkpointer(checkpoint.local(), checkpointEvery, unarySpec, pairSpec, settings, threads, dataHash, examplesHash);
        if (from == null) return c;
        int at = from.state().iteration();
        return resume.remote() ? c.resuming(resume.uri(), RemoteFiles.find().orElseThrow(), at) : c.resuming(resume.local(), at);
    }

    /**
     * A resumed run goes on checkpointing as the run it continues would have: into the folder it
     * resumed from unless --checkpoint names another, every as many iterations as the checkpoint
     * records unless --checkpoint-every is given (a checkpoint from before the interval was recorded:
     * the gap between its folder's two newest, else the default).
     */
    private void continueCheckpoints(Checkpoint from) {
        if (checkpoint == null) {
            int at = from.state().iteration();
            checkpoint = resume.remote() ? new Location(null, Checkpointer.continuing(resume.uri(), RemoteFiles.find().orElseThrow(), at, "--checkpoint DIR"))
                    : new Location(Checkpointer.continuing(resume.local(), at, "--checkpoint DIR"), null);
        }
        if (!isGiven("--checkpoint-every")) checkpointEvery = from.interval() > 0 ? from.interval() : Checkpointer.DEFAULT_EVERY;
    }

    /**
     * Refuses a checkpoint of other data. The data hash when both sides know it (one machine, and
     * checkpoints written on one machine), else the examples hash (what a Spark driver knows).
     */
    private void checkSameData(Checkpoint from, String dataHash, String examplesHash) {
        String ours, theirs;
        if (from.examplesHash() != null && examplesHash != null) {
            ours = examplesHash;
            theirs = from.examplesHash();
        } else if (from.dataHash() != null && dataHash != null) {
            ours = dataHash;
            theirs = from.dataHash();
        } else {
            throw new BadInputException(resume + ": the checkpoint records no hash of its data that a Spark driver can check (written before"
                    + " structlr recorded the examples hash); resume it once without --spark, which writes checkpoints that --spark resumes");
        }
        if (!ours.equals(theirs)) {
            throw new BadInputException(data + ": is not the data set the checkpoint " + resume + " was trained on (data hash "
                    + ours.substring(0, 12) + "..., the checkpoint's " + theirs.substring(0, Math.min(12, theirs.length())) + "...)");
        }
    }

    private boolean isGiven(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /**
     * Takes the kinds, settings and threads of the checkpoint; an option given on the command line
     * must agree with it (a different one would silently change the run), except --iterations.
     */
    private void adoptCheckpoint(Checkpoint cp) {
        LearnSettings s = cp.settings();
        unary = agree("--unary", unary, cp.unaryKind());
        pairwise = agree("--pairwise", pairwise, cp.pairKind());
        learning.eps = agree("--eps", learning.eps, s.eps());
        learning.sweeps = agree("--sweeps", learning.sweeps, s.sweepsPerFit());
        learning.evalSweeps = agree("--eval-sweeps", learning.evalSweeps, s.evalSweeps());
        learning.evalEvery = agree("--eval-every", learning.evalEvery, s.evalEvery());
        learning.seed = agree("--seed", learning.seed, s.seed());
        schedule.schedule = agree("--schedule", schedule.schedule, s.schedule());
        engine.engine = agree("--engine", engine.engine, s.engine());
        learning.voidForm = agree("--void-form", learning.voidForm, s.voidForm());
        regions = agree("--regions", regions, cp.regions());
        if (!isGiven("--threads")) common.threads = cp.threads();
        if (!isGiven("--iterations")) iterations = s.iterations();
    }

    /**
     * The class with the checkpoint's option values: each option given on the command line must
     * have the checkpoint's value (a different one would silently change the fits); options not
     * given are the checkpoint's, not the defaults.
     */
    private FunctionSpec agreeOptions(String option, Map<String, String> given, FunctionSpec asked, FunctionSpec saved) {
        StringBuilder differ = new StringBuilder(), theirs = new StringBuilder();
        for (String name : given.keySet()) {
            Object a = asked.options().values().get(name), b = saved.options().values().get(name);
            if (!java.util.Objects.equals(a, b)) {
                differ.append(differ.length() == 0 ? "" : ", ").append(name).append('=').append(given.get(name));
                theirs.append(theirs.length() == 0 ? "" : ", ").append(name).append('=').append(showOption(b));
            }
        }
        if (differ.length() > 0) {
            throw new BadInputException(resume + ": the checkpoint was trained with " + option + " " + theirs + ", not " + differ
                    + " (its " + saved.name() + " options: " + saved.options() + "); resume it without " + option + " or start a new run");
        }
        return saved;
    }

    private static String showOption(Object v) {
        if (v == null) return "(does not apply)";
        return v instanceof List<?> l ? String.join(",", l.stream().map(String::valueOf).toList()) : String.valueOf(v);
    }

    private <T> T agree(String option, T given, T saved) {
        if (isGiven(option) && !given.equals(saved)) {
            throw new BadInputException(resume + ": the checkpoint was trained with " + option + " " + show(saved) + ", not " + show(given)
                    + "; resume it without " + option + " or start a new run");
        }
        return saved;
    }

    private static String show(Object o) {
        return o instanceof org.structlr.model.RegionLayout r ? r.label() : String.valueOf(o);
    }

    static void write(Training.Outcome out, Path model, Path report, Path csv) throws java.io.IOException {
        write(out, model, report, csv, new java.io.PrintWriter(System.out, true), Map.of());
    }

    /** Writes the outputs that are not null (the report with {@code reportExtra}'s entries) and prints the final line to {@code stdout}. */
    static void write(Training.Outcome out, Path model, Path report, Path csv, java.io.PrintWriter stdout, Map<String, Object> reportExtra)
            throws java.io.IOException {
        List<IterationRecord> curve = out.curve();
        if (model != null) out.model().save(model);
        if (report != null) {
            Map<String, Object> extra = new java.util.LinkedHashMap<>();
            extra.put("settings", out.model().settings());
            extra.putAll(reportExtra);
            extra.put("seconds", Map.of("oracle_fits", out.fitSeconds(), "message_passing", out.passingSeconds(), "evaluation", out.evalSeconds()));
            LearningReport.writeJson(report, curve, extra);
        }
        if (csv != null) LearningReport.writeCsv(csv, curve);
        IterationRecord last = curve.isEmpty() ? null : curve.get(curve.size() - 1);
        if (last != null) {
            stdout.printf(java.util.Locale.ROOT, "final: iteration %d  objective %.5f  train error %.4f  test error %.4f  %.1f s%n",
                    last.iteration(), last.objective(), last.trainError(), last.testError(), last.seconds());
            stdout.printf(java.util.Locale.ROOT, "time: oracle fits %.1f s, message passing %.1f s, evaluation %.1f s%n",
                    out.fitSeconds(), out.passingSeconds(), out.evalSeconds());
            stdout.flush();
        }
    }
}
