package org.structlr.api;

import java.nio.file.Path;
import java.util.List;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;

/**
 * Training, test and (optional) val examples: a data set folder ({@code train/}, {@code test/},
 * {@code val/} of .npz files), lists in memory, or the paper's synthetic denoising images.
 * <pre>{@code
 *   CrfData data = CrfData.denoising(4, 4, 32, 1);     // 4 + 4 noisy 32x32 images, seed 1
 *   Path dir = java.nio.file.Files.createTempDirectory("structlr-data-");
 *   data.write(dir);                                   // structlr train --data DIR reads it
 *   CrfData again = CrfData.read(dir);
 *   CrfData split = CrfData.of(again.train().subList(0, 3), again.train().subList(3, 4), again.test());   // train, val, test
 *   System.out.println(split.train().size() + " train, " + split.val().size() + " val, " + split.numLabels() + " labels");
 * }</pre>
 */
public final class CrfData {
    final Dataset dataset;

    CrfData(Dataset dataset) {
        this.dataset = dataset;
    }

    /** Reads a data set folder: {@code DIR/train/*.npz} and (optional) {@code DIR/test/*.npz}, {@code DIR/val/*.npz}. */
    public static CrfData read(Path dir) {
        return new CrfData(Dataset.load(dir));
    }

    /** Examples made in memory; {@code test} may be empty. */
    public static CrfData of(List<CrfExample> train, List<CrfExample> test) {
        return of(train, List.of(), test);
    }

    /** Examples made in memory with val examples for {@link CrfTrainer.Builder#validation}; {@code val} and {@code test} may be empty. */
    public static CrfData of(List<CrfExample> train, List<CrfExample> val, List<CrfExample> test) {
        return new CrfData(Dataset.of(unwrap(train), unwrap(test), unwrap(val)));
    }

    /**
     * The synthetic denoising images of the paper's first experiment (docs/design.md), as
     * {@code structlr demo} makes them: {@code size x size} binary images under heavy noise, unary
     * features (1, noisy pixel), pairwise features (1, noisy edge) on the 4-connected grid,
     * horizontal and vertical edges two pairwise types. The paper: 16 + 16 images of 100x100.
     */
    public static CrfData denoising(int numTrain, int numTest, int size, long seed) {
        return new CrfData(new DenoisingGenerator().generate(numTrain, numTest, size, size, seed));
    }

    /** Writes this data as a data set folder that {@link #read} (and the command line) reads. */
    public void write(Path dir) throws java.io.IOException {
        dataset.write(dir);
    }

    public List<CrfExample> train() { return wrap(dataset.train()); }

    public List<CrfExample> test() { return wrap(dataset.test()); }

    public List<CrfExample> val() { return wrap(dataset.val()); }

    /** The label count L. */
    public int numLabels() { return dataset.numLabels(); }

    @Override
    public String toString() { return dataset.toString(); }

    static List<Example> unwrap(List<CrfExample> xs) {
        return xs.stream().map(x -> x.example).toList();
    }

    static List<CrfExample> wrap(List<Example> xs) {
        return xs.stream().map(CrfExample::new).toList();
    }
}
