package org.structlr.api;

import java.nio.file.Path;
import java.util.List;
import org.structlr.data.Dataset;
import org.structlr.data.Example;

/** Training and test examples: a data set folder ({@code train/} and {@code test/} of .npz files) or lists in memory. */
public final class CrfData {
    final Dataset dataset;

    CrfData(Dataset dataset) {
        this.dataset = dataset;
    }

    /** Reads a data set folder: {@code DIR/train/*.npz} and (optional) {@code DIR/test/*.npz}. */
    public static CrfData read(Path dir) {
        return new CrfData(Dataset.load(dir));
    }

    /** Examples made in memory; {@code test} may be empty. */
    public static CrfData of(List<CrfExample> train, List<CrfExample> test) {
        return new CrfData(Dataset.of(unwrap(train), unwrap(test), List.of()));
    }

    /** Writes this data as a data set folder that {@link #read} (and the command line) reads. */
    public void write(Path dir) throws java.io.IOException {
        dataset.write(dir);
    }

    public List<CrfExample> train() { return wrap(dataset.train()); }

    public List<CrfExample> test() { return wrap(dataset.test()); }

    /** The label count L. */
    public int numLabels() { return dataset.numLabels(); }

    static List<Example> unwrap(List<CrfExample> xs) {
        return xs.stream().map(x -> x.example).toList();
    }

    static List<CrfExample> wrap(List<Example> xs) {
        return xs.stream().map(CrfExample::new).toList();
    }
}
