package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.graph.FactorGraph;

/** Every kind of bad input gives one BadInputException naming the file and the problem. */
class BadInputTest {
    @TempDir
    Path tmp;

    /** A valid example: a 2x2 image, 4 edges, Du = 2, Dp = 1. */
    static Map<String, NpyArray> valid() {
        Map<String, NpyArray> m = new LinkedHashMap<>();
        m.put("unary", NpyArray.ofFloats(new float[] {1, 0.1f, 1, 0.2f, 1, 0.3f, 1, 0.4f}, 4, 2));
        m.put("edges", NpyArray.ofInts(new int[] {0, 1, 2, 3, 0, 2, 1, 3}, 4, 2));
        m.put("pairwise", NpyArray.ofFloats(new float[] {0.5f, 0.6f, 0.7f, 0.8f}, 4, 1));
        m.put("labels", NpyArray.ofInts(new int[] {0, 1, 1, 0}, 4));
        m.put("num_labels", NpyArray.scalarInt(2));
        m.put("shape", NpyArray.ofInts(new int[] {2, 2}, 2));
        m.put("edge_type", NpyArray.ofInts(new int[] {0, 0, 1, 1}, 4));
        return m;
    }

    private Path file(String name, Consumer<Map<String, NpyArray>> change) throws IOException {
        Map<String, NpyArray> m = valid();
        change.accept(m);
        Path f = tmp.resolve(name + ".npz");
        Npz.write(f, m);
        return f;
    }

    /** Reading {@code f} fails with a message that names the file and contains every word. */
    private static BadInputException assertBad(Path f, String... words) {
        BadInputException e = assertThrows(BadInputException.class, () -> ExampleIO.read(f));
        assertMessage(e, f, words);
        return e;
    }

    private static void assertMessage(BadInputException e, Path f, String... words) {
        String msg = e.getMessage();
        assertTrue(msg.contains(f.getFileName().toString()), "message should name " + f.getFileName() + ": " + msg);
        for (String w : words) assertTrue(msg.contains(w), "message should contain '" + w + "': " + msg);
    }

    @Test
    void validFileReads() throws IOException {
        Example ex = ExampleIO.read(file("ok", m -> {}));
        assertEquals(4, ex.numVariables());
        assertEquals(1, ex.pairDim());
    }

    @Test
    void missingRequiredArrays() throws IOException {
        for (String name : List.of("unary", "edges", "pairwise")) {
            assertBad(file("no_" + name, m -> m.remove(name)), "missing", "'" + name + "'");
        }
    }

    @Test
    void wrongDtypes() throws IOException {
        assertBad(file("int_unary", m -> m.put("unary", NpyArray.ofInts(new int[8], 4, 2))), "dtype", "'unary'");
        assertBad(file("bool_pairwise", m -> m.put("pairwise", NpyArray.ofBools(new boolean[4], 4, 1))), "dtype", "'pairwise'");
        assertBad(file("float_edges", m -> m.put("edges", NpyArray.ofFloats(new float[] {0, 1, 2, 3, 0, 2, 1, 3}, 4, 2))), "dtype", "'edges'");
        assertBad(file("float_labels", m -> m.put("labels", NpyArray.ofDoubles(new double[] {0, 1, 1, 0}, 4))), "dtype", "'labels'");
        assertBad(file("uint8_labels", m -> m.put("labels", NpyArray.ofUint8(new byte[] {0, 1, 1, 0}, 4))), "dtype", "'labels'");
        // int64 beyond int32 is a range error, not silently wrapped
        assertBad(file("huge_label", m -> m.put("labels", NpyArray.ofLongs(new long[] {0, 1, 1L << 40, 0}, 4))), "int32", "'labels'");
        // float64 features are fine (numpy's default) unless they overflow float32
        ExampleIO.read(file("f64_ok", m -> m.put("unary", NpyArray.ofDoubles(new double[] {1, 0.1, 1, 0.2, 1, 0.3, 1, 0.4}, 4, 2))));
        assertBad(file("f64_overflow", m -> m.put("unary", NpyArray.ofDoubles(new double[] {1, 1e300, 1, 0.2, 1, 0.3, 1, 0.4}, 4, 2))), "overflows");
    }

    @Test
    void shapesThatDisagree() throws IOException {
        assertBad(file("pair_rows", m -> m.put("pairwise", NpyArray.ofFloats(new float[3], 3, 1))), "shape mismatch", "rows");
        assertBad(file("edges_3cols", m -> m.put("edges", NpyArray.ofInts(new int[12], 4, 3))), "shape mismatch", "[E, 2]");
        assertBad(file("edges_1d", m -> m.put("edges", NpyArray.ofInts(new int[8], 8))), "shape mismatch", "'edges'");
        assertBad(file("unary_1d", m -> m.put("unary", NpyArray.ofFloats(new float[4], 4))), "shape mismatch", "'unary'");
        assertBad(file("labels_len", m -> m.put("labels", NpyArray.ofInts(new int[] {0, 1, 1}, 3))), "shape mismatch", "'labels'");
        assertBad(file("edge_type_len", m -> m.put("edge_type", NpyArray.ofInts(new int[] {0, 1}, 2))), "shape mismatch", "'edge_type'");
        assertBad(file("num_labels_vec", m -> m.put("num_labels", NpyArray.ofInts(new int[] {2, 2}, 2))), "scalar", "'num_labels'");
        assertBad(file("hw", m -> m.put("shape", NpyArray.ofInts(new int[] {2, 3}, 2))), "H*W", "shape mismatch");
        assertBad(file("shape_3", m -> m.put("shape", NpyArray.ofInts(new int[] {1, 2, 2}, 3))), "shape mismatch", "[H, W]");
    }

    @Test
    void labelsOutOfRange() throws IOException {
        assertBad(file("neg_label", m -> m.put("labels", NpyArray.ofInts(new int[] {0, -2, 1, 0}, 4))), "out of range", "-2", "-1 for no label (void)");
        // -1 is "no label" (void), not an error
        Example partial = ExampleIO.read(file("void_label", m -> m.put("labels", NpyArray.ofInts(new int[] {0, -1, 1, -1}, 4))));
        assertEquals(2, partial.numLabelled());
        assertTrue(partial.hasVoid());
        assertEquals(1, partial.maxLabel());
        assertBad(file("big_label", m -> m.put("labels", NpyArray.ofInts(new int[] {0, 2, 1, 0}, 4))), "out of range", "num_labels = 2");
    }

    @Test
    void numLabelsBelowTwo() throws IOException {
        assertBad(file("one_label", m -> {
            m.put("num_labels", NpyArray.scalarInt(1));
            m.put("labels", NpyArray.ofInts(new int[4], 4));
        }), "num_labels < 2");
        assertBad(file("zero_labels", m -> m.put("num_labels", NpyArray.scalarLong(0))), "num_labels < 2");
    }

    @Test
    void nonFiniteFeatures() throws IOException {
        assertBad(file("nan_unary", m -> m.put("unary", NpyArray.ofFloats(new float[] {1, 0, 1, Float.NaN, 1, 0, 1, 0}, 4, 2))), "NaN", "'unary'", "row 1");
        assertBad(file("inf_pair", m -> m.put("pairwise", NpyArray.ofFloats(new float[] {0, Float.POSITIVE_INFINITY, 0, 0}, 4, 1))), "infinite", "'pairwise'");
        assertBad(file("inf_f8", m -> m.put("unary", NpyArray.ofDoubles(new double[] {1, 0, 1, 0, 1, Double.NEGATIVE_INFINITY, 1, 0}, 4, 2))), "infinite");
    }

    @Test
    void badEdges() throws IOException {
        assertBad(file("edge_oob", m -> m.put("edges", NpyArray.ofInts(new int[] {0, 1, 2, 3, 0, 4, 1, 3}, 4, 2))), "out of range", "edge 2");
        assertBad(file("edge_neg", m -> m.put("edges", NpyArray.ofInts(new int[] {0, 1, 2, -1, 0, 2, 1, 3}, 4, 2))), "out of range", "edge 1");
        assertBad(file("edge_self", m -> m.put("edges", NpyArray.ofInts(new int[] {0, 1, 2, 3, 2, 2, 1, 3}, 4, 2))), "self-loop", "edge 2");
        assertBad(file("edge_repeat", m -> m.put("edges", NpyArray.ofInts(new int[] {0, 1, 2, 3, 0, 2, 0, 1}, 4, 2))), "repeated", "edge 3");
        assertBad(file("edge_reversed", m -> m.put("edges", NpyArray.ofInts(new int[] {0, 1, 2, 3, 0, 2, 1, 0}, 4, 2))), "repeated", "edge 0");
        assertBad(file("edge_type_neg", m -> m.put("edge_type", NpyArray.ofInts(new int[] {0, -1, 0, 0}, 4))), "edge_type", "out of range");
    }

    @Test
    void brokenFiles() throws IOException {
        Path text = tmp.resolve("text.npz");
        Files.writeString(text, "this is not a zip file at all");
        assertBad(text, "not a zip");

        Path empty = tmp.resolve("empty.npz");
        Files.write(empty, new byte[0]);
        assertBad(empty, "not a zip");

        byte[] good = Files.readAllBytes(file("whole", m -> {}));
        Path cut = tmp.resolve("cut.npz");
        Files.write(cut, Arrays.copyOf(good, good.length / 2));
        assertBad(cut, "truncated");

        // a well-formed zip whose .npy entry lost its last bytes
        byte[] npy = Npz.toNpy(NpyArray.ofFloats(new float[8], 4, 2));
        Path shortNpy = tmp.resolve("short_npy.npz");
        try (var zos = new java.util.zip.ZipOutputStream(Files.newOutputStream(shortNpy))) {
            zos.putNextEntry(new java.util.zip.ZipEntry("unary.npy"));
            zos.write(npy, 0, npy.length - 3);
            zos.closeEntry();
        }
        assertBad(shortNpy, "truncated", "'unary'");

        // a .npy entry with an unsupported dtype (int16)
        byte[] i2 = Npz.toNpy(NpyArray.ofInts(new int[] {1, 2}, 2));
        String h = new String(i2, java.nio.charset.StandardCharsets.ISO_8859_1).replace("'<i4', 'fortran_order': False, 'shape': (2,)",
                "'<i2', 'fortran_order': False, 'shape': (4,)");
        Path int16 = tmp.resolve("int16.npz");
        try (var zos = new java.util.zip.ZipOutputStream(Files.newOutputStream(int16))) {
            zos.putNextEntry(new java.util.zip.ZipEntry("unary.npy"));
            zos.write(h.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            zos.closeEntry();
        }
        assertBad(int16, "unsupported dtype", "'unary'");

        assertBad(tmp.resolve("nowhere.npz"), "missing");
    }

    @Test
    void graphChecksTypesAndLabels() throws IOException {
        Example ex = ExampleIO.read(file("g", m -> {}));
        FactorGraph g = ex.graph(2, List.of("horizontal", "vertical"));
        assertEquals(4, g.numEdges());
        assertEquals(1, g.edgeType(2));
        assertEquals(2, g.edgeTo(2));
        BadInputException e = assertThrows(BadInputException.class, () -> ex.graph(2, List.of("pairwise")));
        assertMessage(e, tmp.resolve("g.npz"), "edge_type", "out of range");
        e = assertThrows(BadInputException.class, () -> ex.graph(1, List.of("a", "b")));
        assertMessage(e, tmp.resolve("g.npz"), "num_labels < 2");

        Example noTypes = ExampleIO.read(file("g2", m -> {
            m.remove("edge_type");
            m.put("labels", NpyArray.ofInts(new int[] {0, 1, 2, 0}, 4));
            m.remove("num_labels");
        }));
        FactorGraph g2 = noTypes.graph(3, List.of("pairwise"));
        assertEquals(0, g2.edgeType(3));
        assertEquals(3, g2.numLabels(0));
        e = assertThrows(BadInputException.class, () -> noTypes.graph(2, List.of("pairwise")));
        assertMessage(e, tmp.resolve("g2.npz"), "out of range");
    }

    // ------------------------------------------------------------------------------------------
    // data set folders

    private Path dataset(String name) throws IOException {
        Path d = tmp.resolve(name);
        Npz.write(d.resolve("train/a.npz"), valid());
        Npz.write(d.resolve("train/b.npz"), valid());
        Npz.write(d.resolve("test/a.npz"), valid());
        return d;
    }

    private static void assertBadDataset(Path dir, Path named, String... words) {
        BadInputException e = assertThrows(BadInputException.class, () -> Dataset.load(dir));
        String msg = e.getMessage();
        assertTrue(msg.contains(named.toString()), "message should name " + named + ": " + msg);
        for (String w : words) assertTrue(msg.contains(w), "message should contain '" + w + "': " + msg);
    }

    @Test
    void validDatasetLoadsSorted() throws IOException {
        Path d = dataset("ok");
        Npz.write(d.resolve("train/0.npz"), valid());
        Files.writeString(d.resolve("train/notes.txt"), "ignored");
        Dataset ds = Dataset.load(d);
        assertEquals(List.of("0.npz", "a.npz", "b.npz"),
                ds.train().stream().map(x -> x.source().orElseThrow().getFileName().toString()).toList());
        assertEquals(1, ds.test().size());
        assertEquals(0, ds.val().size());
        assertEquals(2, ds.numLabels());
        assertEquals(2, ds.unaryDim());
        assertEquals(1, ds.pairDim());
        assertEquals(2, ds.numPairTypes());
    }

    @Test
    void missingAndEmptyFolders() throws IOException {
        Path none = tmp.resolve("none");
        assertBadDataset(none, none, "missing folder");
        Path noTest = tmp.resolve("noTest");
        Npz.write(noTest.resolve("train/a.npz"), valid());
        assertBadDataset(noTest, noTest.resolve("test"), "missing folder");
        Path emptyTrain = tmp.resolve("emptyTrain");
        Files.createDirectories(emptyTrain.resolve("train"));
        Files.writeString(emptyTrain.resolve("train/readme.txt"), "no npz here");
        Npz.write(emptyTrain.resolve("test/a.npz"), valid());
        assertBadDataset(emptyTrain, emptyTrain.resolve("train"), "empty folder", "no .npz");
    }

    @Test
    void badFileInsideADatasetIsNamed() throws IOException {
        Path d = dataset("badfile");
        Files.writeString(d.resolve("test/z.npz"), "garbage");
        assertBadDataset(d, d.resolve("test/z.npz"), "not a zip");
    }

    @Test
    void inconsistentFeatureWidths() throws IOException {
        Path d = dataset("widths");
        Map<String, NpyArray> m = valid();
        m.put("unary", NpyArray.ofFloats(new float[12], 4, 3));
        Npz.write(d.resolve("test/b.npz"), m);
        assertBadDataset(d, d.resolve("test/b.npz"), "inconsistent feature widths", "unary");
        Map<String, NpyArray> p = valid();
        p.put("pairwise", NpyArray.ofFloats(new float[8], 4, 2));
        Path d2 = dataset("pwidths");
        Npz.write(d2.resolve("train/c.npz"), p);
        assertBadDataset(d2, d2.resolve("train/c.npz"), "inconsistent feature widths", "pairwise");
    }

    @Test
    void labelCountsAcrossFiles() throws IOException {
        // without num_labels, L = 1 + the largest training label; a larger test label is out of range
        Path d = tmp.resolve("derived");
        Map<String, NpyArray> m = valid();
        m.remove("num_labels");
        Npz.write(d.resolve("train/a.npz"), m);
        Map<String, NpyArray> t = valid();
        t.remove("num_labels");
        t.put("labels", NpyArray.ofInts(new int[] {0, 2, 1, 0}, 4));
        Npz.write(d.resolve("test/a.npz"), t);
        assertBadDataset(d, d.resolve("test/a.npz"), "out of range", "label 2");

        // all training labels 0 and no num_labels: fewer than 2 labels
        Path one = tmp.resolve("one");
        Map<String, NpyArray> z = valid();
        z.remove("num_labels");
        z.put("labels", NpyArray.ofInts(new int[4], 4));
        Npz.write(one.resolve("train/a.npz"), z);
        Npz.write(one.resolve("test/a.npz"), z);
        assertBadDataset(one, one.resolve("train/a.npz"), "num_labels < 2");

        Path disagree = dataset("disagree");
        Map<String, NpyArray> n3 = valid();
        n3.put("num_labels", NpyArray.scalarInt(3));
        Npz.write(disagree.resolve("train/c.npz"), n3);
        assertBadDataset(disagree, disagree.resolve("train/c.npz"), "inconsistent num_labels");

        Path unlabelled = dataset("unlabelled");
        Map<String, NpyArray> u = valid();
        u.remove("labels");
        Npz.write(unlabelled.resolve("train/c.npz"), u);
        assertBadDataset(unlabelled, unlabelled.resolve("train/c.npz"), "missing labels");
        // unlabelled test data is fine
        Npz.write(unlabelled.resolve("train/c.npz"), valid());
        Npz.write(unlabelled.resolve("test/c.npz"), u);
        assertEquals(2, Dataset.load(unlabelled).test().size());
    }

    @Test
    void writingRefusesAFolderWithExamples() throws IOException {
        Dataset ds = Dataset.load(dataset("src"));
        Path out = tmp.resolve("copy");
        ds.write(out);
        Dataset back = Dataset.load(out);
        assertEquals(ds.train(), back.train());
        assertEquals(ds.test(), back.test());
        assertEquals(List.of("000.npz", "001.npz"),
                back.train().stream().map(x -> x.source().orElseThrow().getFileName().toString()).toList());
        BadInputException e = assertThrows(BadInputException.class, () -> ds.write(out));
        assertTrue(e.getMessage().contains("already holds"), e.getMessage());
    }

    /** Label and edge-type counts size every table (L*L) and the oracles (one per type): bounded before use. */
    @Test
    void labelAndEdgeTypeCountsAreBounded() throws IOException {
        assertBad(file("many_labels", m -> m.put("num_labels", NpyArray.scalarInt(46_341))),
                "num_labels of 46341 labels exceeds the limit of 4096 labels", "-Dstructlr.limit.labels");
        // without num_labels, the largest label decides L
        assertBad(file("big_label", m -> {
            m.remove("num_labels");
            m.put("labels", NpyArray.ofInts(new int[] {0, 1, 2_000_000_000, 0}, 4));
        }), "label 2000000000 of variable 2 asks for a label count of 2000000001 labels exceeds the limit");
        assertBad(file("many_types", m -> m.put("edge_type", NpyArray.ofInts(new int[] {0, 0, 1, 999_999}, 4))),
                "edge_type 999999 of edge 3 asks for a type count of 1000000 edge types exceeds the limit of 4096", "-Dstructlr.limit.edgeTypes");
        System.setProperty("structlr.limit.edgeTypes", "2000000");
        try {
            assertEquals(4, ExampleIO.read(tmp.resolve("many_types.npz")).numEdges(), "raised, it reads");
        } finally {
            System.clearProperty("structlr.limit.edgeTypes");
        }
    }
}
