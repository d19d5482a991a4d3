package org.structlr.data;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A data set: training, test and (possibly empty) validation examples, checked for consistency
 * across all of them. Immutable.
 *
 * <p>Checks (each a {@link BadInputException} naming the offending file): at least one training
 * example; every training example labelled; the same unary width Du and pairwise width Dp in every
 * example of every split; the same {@code num_labels} wherever it is given; the label count L at
 * least 2; every label of every split below L.
 *
 * <p>The label count L is the {@code num_labels} of the files when any file gives it, else 1 + the
 * largest training label (docs/design.md §4).
 */
public final class Dataset {
    /**
     * The optional JSON file beside train/ and test/ that says what the data set is and how it was
     * made from images (written by {@code images-data} and {@code horses-data}: working size,
     * feature kind, HOG cell or patch side, and the class table under {@code classes}). Training
     * copies its image recipe and class table into the model so that {@code predict} featurises new
     * images the same way and names classes without being told.
     */
    public static final String INFO_FILE = "dataset.json";
    /** The name of {@link #INFO_FILE} in data sets written before images-data (read when the new name is absent). */
    public static final String LEGACY_INFO_FILE = "horses-data.json";
    /** The key of the class table in {@link #INFO_FILE}. */
    public static final String CLASSES = "classes";

    private final List<Example> train;
    private final List<Example> test;
    private final List<Example> val;
    private final Path root;
    private final DatasetSummary summary;

    /** Examples made in memory (e.g. by a generator); {@code val} may be empty. */
    public static Dataset of(List<Example> train, List<Example> test, List<Example> val) {
        return new Dataset(train, test, val, null);
    }

    Dataset(List<Example> train, List<Example> test, List<Example> val, Path root) {
        this.train = List.copyOf(train);
        this.test = List.copyOf(test);
        this.val = List.copyOf(val);
        this.root = root;
        this.summary = check(root == null ? null : root.toString(), facts(this.train), facts(this.test), facts(this.val));
    }

    private static List<ExampleFacts> facts(List<Example> examples) {
        return examples.stream().map(ExampleFacts::of).toList();
    }

    /**
     * The checks across a data set's examples (see the class comment), on what is known of each
     * example: the same checks, in the same order and with the same messages, whether the arrays
     * are here ({@link Dataset}) or on the machines that read them (train --spark).
     *
     * @param root the folder or URI the examples were read from (for messages), or null
     * @throws BadInputException naming the offending file
     */
    public static DatasetSummary check(String root, List<ExampleFacts> train, List<ExampleFacts> test, List<ExampleFacts> val) {
        if (train.isEmpty()) throw bad(root, null, "train", 0, "empty: a data set needs at least one training example");
        List<List<ExampleFacts>> splits = List.of(train, test, val);
        String[] names = {"train", "test", "val"};

        ExampleFacts first = train.get(0);
        int du = first.unaryDim(), dp = first.pairDim();
        Integer given = null;
        ExampleFacts givenBy = null;
        int maxTrainLabel = -1, maxType = 0;
        long labelledTrain = 0;
        for (int s = 0; s < names.length; s++) {
            String split = names[s];
            List<ExampleFacts> list = splits.get(s);
            for (int k = 0; k < list.size(); k++) {
                ExampleFacts ex = list.get(k);
                if (ex.unaryDim() != du) {
                    throw bad(root, ex, split, k, "unary feature width " + ex.unaryDim() + " differs from " + du + " in "
                            + first.name() + " (inconsistent feature widths)");
                }
                if (ex.pairDim() != dp) {
                    throw bad(root, ex, split, k, "pairwise feature width " + ex.pairDim() + " differs from " + dp + " in "
                            + first.name() + " (inconsistent feature widths)");
                }
                if (ex.numLabels() > 0) {
                    int l = ex.numLabels();
                    if (given == null) {
                        given = l;
                        givenBy = ex;
                    } else if (given != l) {
                        throw bad(root, ex, split, k, "num_labels = " + l + " differs from " + given + " in " + givenBy.name()
                                + " (inconsistent num_labels)");
                    }
                }
                if (split.equals("train")) {
                    if (!ex.labelled()) throw bad(root, ex, split, k, "training example has no 'labels' array (missing labels)");
                    maxTrainLabel = Math.max(maxTrainLabel, ex.maxLabel());
                    labelledTrain += ex.labelledVariables();
                }
                maxType = Math.max(maxType, ex.maxEdgeType());
            }
        }
        if (labelledTrain == 0) {
            // the whole split's problem, not one file's: named by its folder
            throw new BadInputException((root != null ? DatasetFiles.child(root, "train") : "train") + ": every training variable is void (label "
                    + Example.VOID + ") in all " + train.size() + " example(s): nothing to learn from");
        }
        int l = given != null ? given : maxTrainLabel + 1;
        if (l < 2) {
            throw bad(root, first, "train", 0, "the training labels use only " + l + " label(s) and no num_labels is given; "
                    + "at least 2 labels are needed (num_labels < 2)");
        }
        for (int s = 0; s < names.length; s++) {
            List<ExampleFacts> list = splits.get(s);
            for (int k = 0; k < list.size(); k++) {
                ExampleFacts ex = list.get(k);
                if (ex.maxLabel() >= l) {
                    throw bad(root, ex, names[s], k, "label " + ex.maxLabel() + " is out of range 0.." + (l - 1)
                            + (given != null ? " (num_labels = " + l + ")" : " (1 + the largest training label)"));
                }
            }
        }
        boolean trainImages = train.stream().allMatch(ExampleFacts::image);
        boolean allImages = trainImages && test.stream().allMatch(ExampleFacts::image) && val.stream().allMatch(ExampleFacts::image);
        return new DatasetSummary(root, train.size(), test.size(), val.size(), l, du, dp, maxType + 1, trainImages, allImages);
    }

    private static BadInputException bad(String root, ExampleFacts ex, String split, int k, String problem) {
        if (ex != null && ex.source() != null) return new BadInputException(ex.source() + ": " + problem);
        String where = root != null ? DatasetFiles.child(root, split) : split + "[" + k + "]";
        return new BadInputException(where + ": " + problem);
    }

    /** Reads a data set folder; see {@link ExampleIO#readDataset(Path)}. */
    public static Dataset load(Path dir) {
        return ExampleIO.readDataset(dir);
    }

    /** Writes this data set as a folder; see {@link ExampleIO#writeDataset(Path, Dataset)}. */
    public void write(Path dir) throws IOException {
        ExampleIO.writeDataset(dir, this);
    }

    public List<Example> train() { return train; }
    public List<Example> test() { return test; }
    public List<Example> val() { return val; }

    /** The examples of split "train", "test" or "val". */
    public List<Example> split(String name) {
        switch (name) {
            case "train": return train;
            case "test": return test;
            case "val": return val;
            default: throw new IllegalArgumentException("no split '" + name + "': train, test or val");
        }
    }

    /**
     * The contents of {@link #INFO_FILE} in the folder this data set was read from; empty when the
     * data set was made in memory or the folder has no such file. A file that is not a JSON object
     * is bad input (named).
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> info() {
        if (root == null) return Map.of();
        Path f = root.resolve(INFO_FILE);
        if (!Files.isRegularFile(f)) f = root.resolve(LEGACY_INFO_FILE);
        if (!Files.isRegularFile(f)) return Map.of();
        try {
            return info(f.toString(), Files.readAllBytes(f));
        } catch (IOException e) {
            throw new BadInputException(f, "cannot be read as JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** The contents of an {@link #INFO_FILE} named {@code where} (a path or a URI), from its bytes. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> info(String where, byte[] json) {
        try {
            Object o = new ObjectMapper().readValue(json, Object.class);
            if (!(o instanceof Map)) throw new BadInputException(where + ": is not a JSON object");
            return new LinkedHashMap<>((Map<String, Object>) o);
        } catch (IOException e) {
            throw new BadInputException(where + ": cannot be read as JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /**
     * The class table of the info file's {@value #CLASSES} entry (checked against L), else classes
     * "0".."L-1" ({@link ClassTable#numbered}).
     */
    public ClassTable classes() {
        return classes(info(), numLabels(), root == null ? "<data set>" : root.resolve(INFO_FILE).toString());
    }

    /** The class table an info file's contents give for a data set of {@code numLabels} labels ({@link #classes()}). */
    public static ClassTable classes(Map<String, Object> info, int numLabels, String where) {
        Object c = info.get(CLASSES);
        if (c == null) return ClassTable.numbered(numLabels, ClassTable.DEFAULT_VOID);
        return ClassTable.fromObject(c, where).requireClasses(numLabels, where);
    }

    /** Whether some example of a split has a void variable ({@link Example#VOID}). */
    public boolean hasVoid(String split) {
        for (Example e : split(split)) if (e.hasVoid()) return true;
        return false;
    }

    /** The folder this data set was read from, if any. */
    public Optional<Path> root() { return Optional.ofNullable(root); }
    /** L, the label count of every variable. */
    public int numLabels() { return summary.numLabels(); }
    /** Du, unary features per variable. */
    public int unaryDim() { return summary.unaryDim(); }
    /** Dp, pairwise features per edge. */
    public int pairDim() { return summary.pairDim(); }
    /** 1 + the largest {@code edge_type} of any example (1 when no example has edge types). */
    public int numPairTypes() { return summary.numPairTypes(); }
    /** The sizes and widths of this data set. */
    public DatasetSummary summary() { return summary; }

    /** Every example of every split, train then test then val. */
    public List<Example> all() {
        List<Example> out = new ArrayList<>(train);
        out.addAll(test);
        out.addAll(val);
        return out;
    }

    @Override
    public String toString() {
        return "Dataset[" + (root != null ? root + ": " : "") + train.size() + " train, " + test.size() + " test, "
                + val.size() + " val; L=" + numLabels() + " Du=" + unaryDim() + " Dp=" + pairDim() + "]";
    }
}
