package org.structlr.learn;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetSummary;
import org.structlr.data.Example;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.engines.EngineUnavailableException;
import org.structlr.inference.engines.Engines;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.RegionLayout;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.FunctionClass;
import org.structlr.oracle.FunctionClasses;
import org.structlr.oracle.FunctionSpec;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ZeroScore;

/** Trains a model on a data set: the one entry point the CLI, the experiments and the notebooks use. */
public final class Training {
    private Training() {}

    public record Outcome(CrfModel model, List<IterationRecord> curve, double fitSeconds, double passingSeconds, double evalSeconds) {}

    /** Refuses, before any work, a function class that cannot read these features. */
    public static void checkApplicable(Dataset data, String unaryKind, String pairKind) {
        checkApplicable(data.summary(), unaryKind, pairKind);
    }

    /** As {@link #checkApplicable(Dataset, String, String)}, on what is known of a data set read elsewhere. */
    public static void checkApplicable(DatasetSummary data, String unaryKind, String pairKind) {
        check("--unary", unaryKind, true, data.unaryDim());
        check("--pairwise", pairKind, false, data.pairDim());
        if ((isWholeImage(unaryKind) || isWholeImage(pairKind)) && !data.trainImages()) {
            throw new BadInputException("--unary/--pairwise fcn: a fully convolutional function reads whole images;"
                    + " every training example must be an image (a 'shape' array)");
        }
    }

    /**
     * Void labels in the training set: learned in the form the settings name ({@link VoidForm}), on
     * one machine with a schedule that does not extrapolate; an extrapolating schedule is refused for
     * now (its line objective counts every label).
     */
    static void checkVoid(Dataset data, LearnSettings settings) {
        if (!data.hasVoid("train")) return;
        String where = data.root().map(Object::toString).orElse("<data set>") + ": the training examples have void labels; ";
        if (settings.newSchedule().extrapolates()) {
            throw new BadInputException(where + "schedule " + settings.schedule() + " extrapolates, which does not handle void yet: use --schedule paper or adaptive");
        }
    }

    /**
     * The pairwise types of {@code data} that no fit will change, each said as a sentence for a
     * warning: a type with no edge in the training examples (it occurs only in test or val), and,
     * in the simple void form, a type whose every training edge touches a void variable (the form
     * leaves such edges out, {@link VoidRows}). Their oracle problems have no row, so the learner
     * skips their fits and their functions stay as they start: zero. Empty when every type trains.
     */
    public static List<String> unfittedPairTypes(Dataset data, VoidForm form) {
        int types = data.numPairTypes();
        long[] edges = new long[types], labelled = new long[types];
        for (Example e : data.train()) {
            int[] type = e.edgeTypes().orElse(null), y = e.labels();
            for (int k = 0; k < e.numEdges(); k++) {
                int t = type == null ? 0 : type[k];
                edges[t]++;
                if (y[e.edgeFrom(k)] != Example.VOID && y[e.edgeTo(k)] != Example.VOID) labelled[t]++;
            }
        }
        List<String> names = pairTypeNames(types), out = new ArrayList<>();
        for (int t = 0; t < types; t++) {
            String type = "pairwise type '" + names.get(t) + "' (edge_type " + t + ")";
            if (edges[t] == 0) {
                out.add(type + " has no edge in the training examples: its function is not fitted and stays zero");
            } else if (labelled[t] == 0 && form == VoidForm.SIMPLE) {
                out.add(type + ": every training edge touches a void variable, which --void-form simple leaves out: its function is not"
                        + " fitted and stays zero (--void-form clamped fits such edges)");
            }
        }
        return out;
    }

    /** Whether the class scores whole images (it needs every example to be an image). */
    private static boolean isWholeImage(String name) {
        return FunctionClasses.canonical(name).equals("fcn");
    }

    private static void check(String option, String name, boolean unary, int width) {
        FunctionClass c;
        try {
            c = FunctionClasses.get(name);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(option + ": " + e.getMessage());
        }
        try {
            c.checkApplicable(unary, width);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(option + " " + c.name() + ": " + e.getMessage());
        }
    }

    /** Refuses option values of {@code spec} that cannot fit {@code data} ({@link FunctionClass#checkData}), as bad input. */
    static void checkData(Dataset data, String option, FunctionSpec spec) {
        try {
            spec.functionClass().checkData(spec.options(), data.summary().unaryDim(), data.numLabels());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(option + " " + spec.name() + ": " + e.getMessage());
        }
    }

    /** Pairwise type names: one type, or one per edge_type value. */
    public static List<String> pairTypeNames(int numPairTypes) {
        if (numPairTypes <= 1) return List.of("pairwise");
        List<String> names = new ArrayList<>();
        for (int t = 0; t < numPairTypes; t++) names.add("pairwise-" + t);
        return names;
    }

    public static Outcome train(Dataset data, String unaryKind, String pairKind, LearnSettings settings,
                                int threads, LearnListener listener) {
        return train(data, FunctionSpec.unary(unaryKind), FunctionSpec.pairwise(pairKind), settings, threads, listener, null, StateSink.NONE);
    }

    /** As {@link #train(Dataset, FunctionSpec, FunctionSpec, LearnSettings, int, LearnListener, LearnerState, StateSink)}, the classes' options at their defaults. */
    public static Outcome train(Dataset data, String unaryKind, String pairKind, LearnSettings settings,
                                int threads, LearnListener listener, LearnerState from, StateSink sink) {
        return train(data, FunctionSpec.unary(unaryKind), FunctionSpec.pairwise(pairKind), settings, threads, listener, from, sink);
    }

    public static Outcome train(Dataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                                int threads, LearnListener listener) {
        return train(data, unary, pair, settings, threads, listener, null, StateSink.NONE);
    }

    /**
     * Trains the {@code unary} and {@code pair} function classes (with their options) on
     * {@code data}, continuing from {@code from} (null: from the start; see {@link Checkpoint} for
     * what must match) and handing {@code sink} the learner's state at the iterations it asks for.
     */
    public static Outcome train(Dataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                                int threads, LearnListener listener, LearnerState from, StateSink sink) {
        return train(data, unary, pair, settings, RowWeights.NONE, threads, listener, from, sink);
    }

    /**
     * As {@link #train(Dataset, FunctionSpec, FunctionSpec, LearnSettings, int, LearnListener, LearnerState, StateSink)}
     * with class and example weights on the oracle rows ({@link RowWeights}; example weights in the
     * order of {@code data.train()}), recorded in the model (settings "weights").
     */
    public static Outcome train(Dataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, RowWeights weights,
                                int threads, LearnListener listener, LearnerState from, StateSink sink) {
        return train(data, unary, pair, RegionLayout.NONE, settings, weights, threads, listener, from, sink);
    }

    /**
     * As {@link #train(Dataset, FunctionSpec, FunctionSpec, LearnSettings, RowWeights, int, LearnListener, LearnerState, StateSink)}
     * with the factors over regions {@code regions} puts on each image besides the pairs; every
     * region type's function is of {@code pair}'s class (with its options), its output space the
     * joint labels of its variables and its features the region's ({@link RegionLayout}).
     */
    public static Outcome train(Dataset data, FunctionSpec unary, FunctionSpec pair, RegionLayout regions, LearnSettings settings, RowWeights weights,
                                int threads, LearnListener listener, LearnerState from, StateSink sink) {
        checkApplicable(data, unary.name(), pair.name());
        checkData(data, "--unary", unary);
        checkData(data, "--pairwise", pair);
        checkVoid(data, settings);
        checkRegions(data, pair, regions, settings);
        // checkpoints record the regions and weights, so that a resume continues with them (Checkpoint)
        if (sink instanceof Checkpointer c) sink = c.recording(regions, weights);
        List<String> types = pairTypeNames(data.numPairTypes());
        int L = data.numLabels();
        ExampleBatch train = new ExampleBatch(data.train(), L, types, regions);
        ExampleBatch test = data.test().isEmpty() ? null : new ExampleBatch(data.test(), L, types, regions);
        checkEngine(settings.engine(), train, test);
        Targets truth;
        try {
            truth = Targets.of(train, weights, settings.voidForm());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(data.root().map(Object::toString).orElse("<data set>") + ": " + e.getMessage());
        }
        AlternatingLearner.Result r;
        try (Oracles oracles = Oracles.create(data.summary(), unary, pair, regions, settings, threads);

             BatchStates states = new BatchStates(train, truth, test, settings.eps(), settings.evaluatesErrors(), settings.engine())) {
            r = new AlternatingLearner(settings, oracles.unary(), oracles.pair(), oracles.regions()).train(states, from, listener, sink);
        }
        Map<String, Object> recorded = weights.any() ? weights.toMap(train.labels(), L) : Map.of();
        return outcome(data.summary(), data.info(), Map.of(DataHashes.DATA_HASH, DataHashes.dataHash(data)), unary, pair, regions, settings, recorded, from, r);
    }

    /**
     * Refuses, before any work, what region factors do not do yet: a whole-image function class, an
     * extrapolating schedule, too many joint labels, and examples that are no 4-connected grid images
     * (named by RegionLayout).
     */
    static void checkRegions(Dataset data, FunctionSpec pair, RegionLayout regions, LearnSettings settings) {
        if (regions == RegionLayout.NONE) return;
        String where = data.root().map(Object::toString).orElse("<data set>");
        String r = "--regions " + regions.label();
        if (isWholeImage(pair.name())) throw new BadInputException(r + ": the region functions are --pairwise's class, and fcn scores whole images, not regions");
        if (settings.newSchedule().extrapolates()) {
            throw new BadInputException(r + ": schedule " + settings.schedule() + " extrapolates, which does not handle region factors yet: use --schedule paper or adaptive");
        }
        try {
            regions.checkLabels(data.numLabels());
        } catch (IllegalArgumentException e) {
            throw new BadInputException(where + ": " + e.getMessage());
        }
    }

    /**
     * The trained model and its report from a learner's result: what {@link #train} returns, shared
     * with learners that run elsewhere (the Spark learner of the {@code -Pspark} build).
     */
    public static Outcome outcome(Dataset data, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                                  LearnerState from, AlternatingLearner.Result r) {
        return outcome(data.summary(), data.info(), Map.of(DataHashes.DATA_HASH, DataHashes.dataHash(data)), unary, pair, settings, from, r);
    }

    /**
     * As {@link #outcome(Dataset, FunctionSpec, FunctionSpec, LearnSettings, LearnerState, AlternatingLearner.Result)}
     * for a data set read elsewhere: its summary, its {@link Dataset#INFO_FILE} contents and the
     * hashes known of it ({@link DataHashes#DATA_HASH} and/or {@link DataHashes#EXAMPLES_HASH}) for the provenance.
     */
    public static Outcome outcome(DatasetSummary data, Map<String, Object> info, Map<String, String> hashes, FunctionSpec unary,
                                  FunctionSpec pair, LearnSettings settings, LearnerState from, AlternatingLearner.Result r) {
        return outcome(data, info, hashes, unary, pair, RegionLayout.NONE, settings, Map.of(), from, r);
    }

    /** As above, recording {@code weights} ({@link RowWeights#toMap}; empty: none) in the model's settings as "weights". */
    static Outcome outcome(DatasetSummary data, Map<String, Object> info, Map<String, String> hashes, FunctionSpec unary,
                           FunctionSpec pair, RegionLayout regions, LearnSettings settings, Map<String, Object> weights, LearnerState from,
                           AlternatingLearner.Result r) {
        List<String> types = pairTypeNames(data.numPairTypes());
        int L = data.numLabels();
        // A type never fitted (0 iterations) is the zero function.
        ScoreFunction unaryFunction = r.unary() != null ? r.unary() : new ZeroScore(L);
        List<ScoreFunction> pairFunctions = new ArrayList<>();
        for (int t = 0; t < types.size(); t++) pairFunctions.add(r.pair().get(t) != null ? r.pair().get(t) : new ZeroScore(L * L));
        List<ScoreFunction> regionFunctions = new ArrayList<>();
        for (int t = 0; t < regions.numTypes(); t++) {
            regionFunctions.add(r.regions().get(t) != null ? r.regions().get(t) : new ZeroScore(regions.jointLabels(L)));
        }
        Map<String, Object> s = settingsMap(unary, pair, settings);
        if (regions != RegionLayout.NONE) s.put("regions", regions.label());
        if (!weights.isEmpty()) s.put("weights", weights);
        Map<String, Object> prov = Provenance.of(data, info, hashes, settings.seed());
        IterationRecord last = r.curve().isEmpty() ? null : r.curve().get(r.curve().size() - 1);
        if (last != null) {
            prov.put("trainError", last.trainError());
            prov.put("testError", last.testError());
            prov.put("trainingSeconds", last.seconds());
        }
        if (from != null) prov.put("resumedAfterIteration", from.iteration());
        prov.put("secondsInOracleFits", r.fitSeconds());
        prov.put("secondsInMessagePassing", r.passingSeconds());
        prov.put("secondsInEvaluation", r.evalSeconds());
        // what the oracles say of themselves (Oracle.describe: every setting that changes a fit)
        Map<String, Object> oracles = new LinkedHashMap<>();
        oracles.put("unary", r.unaryOracle());
        oracles.put("pairwise", r.pairOracles());
        if (!r.regionOracles().isEmpty()) oracles.put("regions", r.regionOracles());
        prov.put("oracles", oracles);
        org.structlr.data.ClassTable classes = Dataset.classes(info, L, (data.root() == null ? "<data set>" : data.root()) + "/" + Dataset.INFO_FILE);
        return new Outcome(new CrfModel(L, settings.eps(), data.unaryDim(), data.pairDim(), types, unaryFunction, pairFunctions,
                        regions, regionFunctions, s, prov, classes),
                r.curve(), r.fitSeconds(), r.passingSeconds(), r.evalSeconds());
    }

    /** Refuses, before any work, a named engine that cannot run the training or test graphs (one error, exit 2 in the CLI). */
    static void checkEngine(EngineChoice engine, ExampleBatch train, ExampleBatch test) {
        try {
            Engines.resolve(engine, train.graph(), train.shapes());
            if (test != null) Engines.resolve(engine, test.graph(), test.shapes());
        } catch (EngineUnavailableException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /**
     * The settings a model records (model.json "settings"): the two classes, their option values
     * ("unaryOptions", "pairwiseOptions": every option the class declares) and the learning settings.
     */
    public static Map<String, Object> settingsMap(FunctionSpec unary, FunctionSpec pair, LearnSettings settings) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("unary", unary.name());
        s.put("pairwise", pair.name());
        s.put("unaryOptions", unary.options().values());
        s.put("pairwiseOptions", pair.options().values());
        s.put("iterations", settings.iterations());
        s.put("eps", settings.eps());
        s.put("sweepsPerFit", settings.sweepsPerFit());
        s.put("evalSweeps", settings.evalSweepsRecorded());
        s.put("evalEvery", settings.evalEvery());
        s.put("seed", settings.seed());
        s.put("schedule", settings.schedule());
        s.put("engine", settings.engine().label());
        s.put("voidForm", settings.voidForm().label());
        return s;
    }
}
