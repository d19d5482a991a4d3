package org.structlr.data;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads and writes examples and data set folders in the {@code .npz} interchange format
 * (docs/design.md §4).
 *
 * <p>Accepted dtypes (what {@code numpy} users naturally produce): features {@code unary} and
 * {@code pairwise} float32 or float64 (float64 is rounded to float32, an overflow is an error);
 * integer arrays {@code edges}, {@code labels}, {@code num_labels}, {@code shape},
 * {@code edge_type} int32 or int64 (values must fit int32). Any other dtype, e.g. float labels or
 * integer features, is a "wrong dtype" error. Arrays with other names are ignored. Files are
 * written with float32 features and int32 integers.
 */
public final class ExampleIO {
    private ExampleIO() {}

    public static final String UNARY = "unary";
    public static final String EDGES = "edges";
    public static final String PAIRWISE = "pairwise";
    public static final String LABELS = "labels";
    public static final String NUM_LABELS = "num_labels";
    public static final String SHAPE = "shape";
    public static final String EDGE_TYPE = "edge_type";

    /**
     * Reads and validates one example.
     *
     * @throws BadInputException naming the file and the problem
     */
    public static Example read(Path file) {
        Map<String, NpyArray> a = Npz.read(file);
        NpyArray unary = required(file, a, UNARY);
        NpyArray edges = required(file, a, EDGES);
        NpyArray pairwise = required(file, a, PAIRWISE);

        requireNdim(file, UNARY, unary, 2, "[V, Du]");
        requireNdim(file, EDGES, edges, 2, "[E, 2]");
        requireNdim(file, PAIRWISE, pairwise, 2, "[E, Dp]");
        if (edges.dim(1) != 2) {
            throw new BadInputException(file, "array 'edges' has shape " + shapeText(edges) + "; expected [E, 2] (shape mismatch)");
        }
        if (pairwise.dim(0) != edges.dim(0)) {
            throw new BadInputException(file, "array 'pairwise' has " + pairwise.dim(0) + " rows but 'edges' has "
                    + edges.dim(0) + " rows (shape mismatch)");
        }
        Example.Builder b = Example.builder(
                floats(file, UNARY, unary), (int) unary.dim(1),
                ints(file, EDGES, edges),
                floats(file, PAIRWISE, pairwise), (int) pairwise.dim(1)).source(file);

        NpyArray labels = a.get(LABELS);
        if (labels != null) {
            requireNdim(file, LABELS, labels, 1, "[V]");
            b.labels(ints(file, LABELS, labels));
        }
        NpyArray numLabels = a.get(NUM_LABELS);
        if (numLabels != null) {
            if (numLabels.size() != 1 || numLabels.ndim() > 1) {
                throw new BadInputException(file, "array 'num_labels' has shape " + shapeText(numLabels) + "; expected a scalar (shape mismatch)");
            }
            b.numLabels(ints(file, NUM_LABELS, numLabels)[0]);
        }
        NpyArray shape = a.get(SHAPE);
        if (shape != null) {
            requireNdim(file, SHAPE, shape, 1, "[2] = [H, W]");
            if (shape.dim(0) != 2) {
                throw new BadInputException(file, "array 'shape' has shape " + shapeText(shape) + "; expected [2] = [H, W] (shape mismatch)");
            }
            int[] hw = ints(file, SHAPE, shape);
            b.shape(hw[0], hw[1]);
        }
        NpyArray edgeType = a.get(EDGE_TYPE);
        if (edgeType != null) {
            requireNdim(file, EDGE_TYPE, edgeType, 1, "[E]");
            b.edgeType(ints(file, EDGE_TYPE, edgeType));
        }
        return b.build();
    }

    /** The arrays an example is written as: float32 features, int32 integers. */
    public static Map<String, NpyArray> toArrays(Example ex) {
        Map<String, NpyArray> m = new LinkedHashMap<>();
        m.put(UNARY, NpyArray.ofFloats(ex.unary(), ex.numVariables(), ex.unaryDim()));
        m.put(EDGES, NpyArray.ofInts(ex.edges(), ex.numEdges(), 2));
        m.put(PAIRWISE, NpyArray.ofFloats(ex.pairwise(), ex.numEdges(), ex.pairDim()));
        if (ex.hasLabels()) m.put(LABELS, NpyArray.ofInts(ex.labels(), ex.numVariables()));
        ex.numLabels().ifPresent(l -> m.put(NUM_LABELS, NpyArray.scalarInt(l)));
        ex.shape().ifPresent(s -> m.put(SHAPE, NpyArray.ofInts(s, 2)));
        ex.edgeTypes().ifPresent(t -> m.put(EDGE_TYPE, NpyArray.ofInts(t, t.length)));
        return m;
    }

    /** Writes one example as an {@code .npz} file (atomically; stored entries like numpy.savez). */
    public static void write(Path file, Example ex) throws IOException {
        Npz.write(file, toArrays(ex));
    }

    // ------------------------------------------------------------------------------------------
    // data set folders

    /**
     * Reads a data set folder: {@code dir/train/*.npz} and {@code dir/test/*.npz} (both required,
     * neither empty) and {@code dir/val/*.npz} when that folder exists; each split sorted by file
     * name. See {@link Dataset} for the checks across files.
     *
     * @throws BadInputException naming the folder or file and the problem
     */
    public static Dataset readDataset(Path dir) {
        DatasetFiles files = DatasetFiles.list(dir.toString(), DatasetFiles.LOCAL);
        return new Dataset(read(files.train()), read(files.test()), read(files.val()), dir);
    }

    private static List<Example> read(List<String> files) {
        List<Example> out = new ArrayList<>(files.size());
        for (String f : files) out.add(read(Path.of(f)));
        return out;
    }

    /** The {@code .npz} files directly in {@code dir}, sorted by file name. */
    static List<Path> npzFiles(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".npz") && Files.isRegularFile(p))
                    .sorted((x, y) -> x.getFileName().toString().compareTo(y.getFileName().toString()))
                    .toList();
        } catch (IOException ex) {
            throw new BadInputException(dir, "cannot list folder: " + ex, ex);
        }
    }

    /**
     * Writes a data set folder: {@code dir/train/000.npz, 001.npz, ...}, likewise {@code test/} and
     * (when not empty) {@code val/}. Refuses a split folder that already holds {@code .npz} files,
     * so that stale examples from an earlier, larger data set can never mix in.
     */
    public static void writeDataset(Path dir, Dataset data) throws IOException {
        Map<String, List<Example>> splits = new LinkedHashMap<>();
        splits.put("train", data.train());
        splits.put("test", data.test());
        if (!data.val().isEmpty()) splits.put("val", data.val());
        for (String split : splits.keySet()) {
            Path d = dir.resolve(split);
            if (Files.isDirectory(d) && !npzFiles(d).isEmpty()) {
                throw new BadInputException(d, "folder already holds .npz files; write the data set to an empty folder");
            }
        }
        for (Map.Entry<String, List<Example>> s : splits.entrySet()) {
            Path d = dir.resolve(s.getKey());
            Files.createDirectories(d);
            List<Example> list = s.getValue();
            int digits = Math.max(3, String.valueOf(Math.max(0, list.size() - 1)).length());
            for (int k = 0; k < list.size(); k++) {
                write(d.resolve(String.format("%0" + digits + "d.npz", k)), list.get(k));
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    private static NpyArray required(Path file, Map<String, NpyArray> a, String name) {
        NpyArray x = a.get(name);
        if (x == null) throw new BadInputException(file, "missing required array '" + name + "' (found " + a.keySet() + ")");
        return x;
    }

    private static void requireNdim(Path file, String name, NpyArray x, int ndim, String expected) {
        if (x.ndim() != ndim) {
            throw new BadInputException(file, "array '" + name + "' has shape " + shapeText(x) + "; expected " + expected + " (shape mismatch)");
        }
    }

    private static float[] floats(Path file, String name, NpyArray x) {
        if (!x.dtype().isFloating()) {
            throw new BadInputException(file, "array '" + name + "' has wrong dtype " + x.dtype().name().toLowerCase()
                    + "; expected float32 or float64");
        }
        float[] f = x.toFloatArray();
        if (x.dtype() == NpyArray.DType.FLOAT64) {
            for (int i = 0; i < f.length; i++) {
                if (Float.isInfinite(f[i]) && !Double.isInfinite(x.getDouble(i))) {
                    throw new BadInputException(file, "array '" + name + "' value " + x.getDouble(i) + " at element " + i
                            + " overflows float32 (non-finite after conversion)");
                }
            }
        }
        return f;
    }

    private static int[] ints(Path file, String name, NpyArray x) {
        if (x.dtype() != NpyArray.DType.INT32 && x.dtype() != NpyArray.DType.INT64) {
            throw new BadInputException(file, "array '" + name + "' has wrong dtype " + x.dtype().name().toLowerCase()
                    + "; expected int32 or int64");
        }
        try {
            return x.toIntArray();
        } catch (ArithmeticException ex) {
            throw new BadInputException(file, "array '" + name + "' holds a value outside the int32 range (out of range)");
        }
    }

    private static String shapeText(NpyArray x) {
        return java.util.Arrays.toString(x.shape());
    }
}
