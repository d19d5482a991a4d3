package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Files written by numpy itself (src/test/resources/data/npz/make_fixtures.py) read back with the
 * exact values the script wrote.
 */
class NpzNumpyFixturesTest {

    static Path fixture(String name) {
        try {
            return Path.of(NpzNumpyFixturesTest.class.getResource("/data/npz/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new AssertionError("missing test fixture " + name, e);
        }
    }

    @Test
    void savezStoredFloat32Int32() {
        Map<String, NpyArray> a = Npz.read(fixture("example_savez_f32_i32.npz"));
        assertEquals(List.of("unary", "edges", "pairwise", "labels", "num_labels", "shape", "edge_type"), List.copyOf(a.keySet()));
        NpyArray unary = a.get("unary");
        assertEquals(NpyArray.DType.FLOAT32, unary.dtype());
        assertArrayEquals(new long[] {6, 2}, unary.shape());
        float[] expect = new float[12];
        for (int i = 0; i < 12; i++) expect[i] = i / 4f;
        assertArrayEquals(expect, unary.toFloatArray());
        assertEquals(NpyArray.DType.INT32, a.get("edges").dtype());
        assertArrayEquals(new int[] {0, 1, 1, 2, 3, 4, 4, 5, 0, 3, 1, 4, 2, 5}, a.get("edges").toIntArray());
        assertArrayEquals(new float[] {0, -0f, 1, -0.5f, 2, -1, 3, -1.5f, 4, -2, 5, -2.5f, 6, -3}, a.get("pairwise").toFloatArray());
        NpyArray numLabels = a.get("num_labels");
        assertTrue(numLabels.isScalar());
        assertEquals(NpyArray.DType.INT32, numLabels.dtype());
        assertEquals(3, numLabels.getLong(0));
    }

    @Test
    void savezCompressedFloat64Int64AsExample() {
        Path f = fixture("example_compressed_f64_i64.npz");
        Map<String, NpyArray> a = Npz.read(f);
        assertEquals(NpyArray.DType.FLOAT64, a.get("unary").dtype());
        assertEquals(NpyArray.DType.INT64, a.get("labels").dtype());
        assertArrayEquals(new long[] {0, 1, 1, 0, 2, 1}, a.get("labels").toLongArray());

        Example ex = ExampleIO.read(f);
        assertEquals(6, ex.numVariables());
        assertEquals(7, ex.numEdges());
        assertEquals(2, ex.unaryDim());
        assertEquals(2, ex.pairDim());
        assertEquals(2.75f, ex.unary(5, 1));
        assertEquals(-1.5f, ex.pairwise(3, 1));
        assertArrayEquals(new int[] {0, 1, 1, 0, 2, 1}, ex.labels());
        assertEquals(3, ex.numLabels().getAsInt());
        assertArrayEquals(new int[] {2, 3}, ex.shape().orElseThrow());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 1}, ex.edgeTypes().orElseThrow());
        // the same example as the stored float32/int32 file
        assertEquals(ExampleIO.read(fixture("example_savez_f32_i32.npz")), ex);
    }

    @Test
    void everyDtypeScalarFortranAndBigEndian() {
        Map<String, NpyArray> a = Npz.read(fixture("dtypes.npz"));
        assertArrayEquals(new float[] {1.5f, -2.25f, 1e-7f, 3.4e38f}, a.get("f4").toFloatArray());
        assertArrayEquals(new double[] {0.1, -1e300, Math.PI, Double.MIN_VALUE}, a.get("f8").toDoubleArray());
        assertArrayEquals(new long[] {2, 2}, a.get("f8").shape());
        assertArrayEquals(new int[] {Integer.MIN_VALUE, -1, 0, Integer.MAX_VALUE}, a.get("i4").toIntArray());
        assertArrayEquals(new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}, a.get("i8").toLongArray());
        assertEquals(NpyArray.DType.UINT8, a.get("u1").dtype());
        assertArrayEquals(new long[] {0, 1, 127, 128, 255}, a.get("u1").toLongArray());
        assertEquals(NpyArray.DType.BOOL, a.get("b1").dtype());
        assertArrayEquals(new long[] {1, 0, 1}, a.get("b1").toLongArray());

        NpyArray s = a.get("scalar_f8");
        assertEquals(0, s.ndim());
        assertEquals(1, s.size());
        assertEquals(2.5, s.getDouble(0));
        assertEquals(-7, a.get("scalar_i8").getLong(0));

        // Fortran order is reordered to C order: element (i, j) of arange(6).reshape(2, 3) is 3i + j
        NpyArray f2 = a.get("fortran2");
        assertArrayEquals(new long[] {2, 3}, f2.shape());
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5}, f2.toIntArray());
        NpyArray f3 = a.get("fortran3");
        assertArrayEquals(new long[] {2, 3, 4}, f3.shape());
        double[] c = new double[24];
        for (int i = 0; i < 24; i++) c[i] = i;
        assertArrayEquals(c, f3.toDoubleArray());

        assertArrayEquals(new double[] {0, 0.5, 1, 1.5, 2}, a.get("big_f8").toDoubleArray());
        assertArrayEquals(new int[] {1, -2, 300000, -400000}, a.get("big_i4").toIntArray());
        assertArrayEquals(new float[] {0, 1, 2, 3, 4, 5}, a.get("big_fortran_f4").toFloatArray());
        assertArrayEquals(new long[] {3, 2}, a.get("big_fortran_f4").shape());

        NpyArray empty = a.get("empty");
        assertArrayEquals(new long[] {0, 2}, empty.shape());
        assertEquals(0, empty.size());
        assertFalse(empty.isScalar());
    }

    @Test
    void npyVersion2() {
        NpyArray v2 = Npz.read(fixture("version2.npz")).get("v2");
        assertArrayEquals(new long[] {2, 5}, v2.shape());
        assertArrayEquals(new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, v2.toLongArray());
    }
}
