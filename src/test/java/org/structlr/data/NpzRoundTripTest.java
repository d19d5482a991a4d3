package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

class NpzRoundTripTest {
    @TempDir
    Path tmp;

    static Map<String, NpyArray> allKinds() {
        Map<String, NpyArray> m = new LinkedHashMap<>();
        m.put("f4", NpyArray.ofFloats(new float[] {1.5f, Float.NaN, Float.NEGATIVE_INFINITY, -0f, Float.MIN_VALUE, 7}, 2, 3));
        m.put("f8", NpyArray.ofDoubles(new double[] {Math.PI, -1e300, Double.MIN_VALUE}, 3));
        m.put("i4", NpyArray.ofInts(new int[] {Integer.MIN_VALUE, 0, Integer.MAX_VALUE, 5}, 2, 1, 2));
        m.put("i8", NpyArray.ofLongs(new long[] {Long.MIN_VALUE, Long.MAX_VALUE}, 2));
        m.put("u1", NpyArray.ofUint8(new byte[] {0, 1, (byte) 200, (byte) 255}, 4));
        m.put("b1", NpyArray.ofBools(new boolean[] {true, false, true}, 3));
        m.put("scalar", NpyArray.scalarInt(42));
        m.put("scalar_f8", NpyArray.scalarDouble(-0.125));
        m.put("empty", NpyArray.ofInts(new int[0], 0, 2));
        return m;
    }

    @Test
    void writeThenReadIsIdentical() throws IOException {
        for (boolean compressed : new boolean[] {false, true}) {
            Path f = tmp.resolve("all" + compressed + ".npz");
            Map<String, NpyArray> in = allKinds();
            Npz.write(f, in, compressed);
            Map<String, NpyArray> out = Npz.read(f);
            assertEquals(in, out);
            assertEquals(List.copyOf(in.keySet()), List.copyOf(out.keySet()));
        }
    }

    @Test
    void npyHeaderIsNumpyStyleAndAligned() {
        byte[] b = Npz.toNpy(NpyArray.ofFloats(new float[] {1, 2, 3}, 3));
        int headerLen = (b[8] & 0xFF) | (b[9] & 0xFF) << 8;
        assertEquals(0, (10 + headerLen) % 64, "data must start on a 64-byte boundary");
        String header = new String(b, 10, headerLen, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertTrue(header.startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"), header);
        assertTrue(header.endsWith("\n"));
    }

    @Test
    void writeIsAtomicAndReplaces() throws IOException {
        Path dir = tmp.resolve("out/nested");
        Path f = dir.resolve("x.npz");
        Npz.write(f, Map.of("a", NpyArray.scalarInt(1)));
        Npz.write(f, Map.of("a", NpyArray.scalarInt(2)));
        assertEquals(2, Npz.read(f).get("a").getLong(0));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(f), s.toList(), "no temporary files are left behind");
        }
    }

    @Test
    void exampleRoundTrip() throws IOException {
        Example ex = ExampleIO.read(NpzNumpyFixturesTest.fixture("example_compressed_f64_i64.npz"));
        Path f = tmp.resolve("ex.npz");
        ExampleIO.write(f, ex);
        Example back = ExampleIO.read(f);
        assertEquals(ex, back);
        assertEquals(f, back.source().orElseThrow());
        Map<String, NpyArray> raw = Npz.read(f);
        assertEquals(NpyArray.DType.FLOAT32, raw.get("unary").dtype());
        assertEquals(NpyArray.DType.INT32, raw.get("edges").dtype());
        assertTrue(raw.get("num_labels").isScalar());
    }

    @Test
    void indArrayConversions() {
        Map<String, NpyArray> m = allKinds();
        for (String k : List.of("f4", "f8", "i4", "i8", "u1", "b1")) {
            NpyArray a = m.get(k);
            INDArray nd = a.toINDArray();
            assertArrayEquals(a.shape(), nd.shape(), k);
            assertEquals(a, NpyArray.fromINDArray(nd), k);
        }
        assertEquals(DataType.FLOAT, m.get("f4").toINDArray().dataType());
        assertEquals(200, m.get("u1").toINDArray().getInt(2));
        INDArray scalar = m.get("scalar").toINDArray();
        assertEquals(0, scalar.rank());
        assertEquals(42, scalar.getInt(0));
        // views and Fortran-order arrays come out in C order
        INDArray f = Nd4j.create(new double[] {0, 1, 2, 3, 4, 5}, new long[] {2, 3}, 'f');
        NpyArray fromF = NpyArray.fromINDArray(f);
        assertArrayEquals(new double[] {0, 2, 4, 1, 3, 5}, fromF.toDoubleArray());
        NpyArray col = NpyArray.fromINDArray(Nd4j.createFromArray(new float[][] {{1, 2}, {3, 4}}).getColumn(1));
        assertArrayEquals(new float[] {2, 4}, col.toFloatArray());
    }
}
