package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files written by {@link Npz} and {@link ExampleIO} are read by numpy itself. Without a python3
 * with numpy on the PATH the tests fail when CI=true (.ci/run installs numpy) and are skipped otherwise.
 */
class NumpyReadsOurFilesTest {
    @TempDir
    Path tmp;

    /** Runs python3 with a script; returns [exit code, output] or null when python3 cannot start. */
    private static Object[] python(String script, String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of("python3", "-c", script));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Object[] {-1, "timed out"};
            }
            return new Object[] {p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)};
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static void assumeNumpy() {
        Object[] r = python("import numpy");
        boolean have = r != null && (Integer) r[0] == 0;
        if (!have && "true".equals(System.getenv("CI"))) {
            org.junit.jupiter.api.Assertions.fail("python3 with numpy is not available (CI=true): "
                    + (r == null ? "python3 does not start" : r[1]));
        }
        assumeTrue(have, "python3 with numpy is not available; skipping the numpy check");
    }

    private static final String CHECK_ALL = String.join("\n",
            "import sys, numpy as np",
            "for f in sys.argv[1:]:",
            "    z = np.load(f, allow_pickle=False)",
            "    assert list(z.keys()) == ['f4','f8','i4','i8','u1','b1','scalar','scalar_f8','empty'], list(z.keys())",
            "    f4 = z['f4']; assert f4.dtype == np.float32 and f4.shape == (2, 3)",
            "    assert f4[0,0] == 1.5 and np.isnan(f4[0,1]) and f4[0,2] == -np.inf and np.signbit(f4[1,0]) and f4[1,2] == 7",
            "    assert f4[1,1] == np.float32(1.4e-45)",
            "    assert z['f8'].dtype == np.float64 and z['f8'].tolist() == [np.pi, -1e300, 5e-324]",
            "    i4 = z['i4']; assert i4.dtype == np.int32 and i4.shape == (2,1,2) and i4.ravel().tolist() == [-2**31, 0, 2**31-1, 5]",
            "    assert z['i8'].dtype == np.int64 and z['i8'].tolist() == [-2**63, 2**63-1]",
            "    assert z['u1'].dtype == np.uint8 and z['u1'].tolist() == [0, 1, 200, 255]",
            "    assert z['b1'].dtype == np.bool_ and z['b1'].tolist() == [True, False, True]",
            "    assert z['scalar'].shape == () and z['scalar'].dtype == np.int32 and int(z['scalar']) == 42",
            "    assert z['scalar_f8'].shape == () and float(z['scalar_f8']) == -0.125",
            "    assert z['empty'].shape == (0, 2) and z['empty'].dtype == np.int32",
            "print('OK')");

    @Test
    void numpyReadsEveryDtypeStoredAndCompressed() throws IOException {
        assumeNumpy();
        Path stored = tmp.resolve("stored.npz"), deflated = tmp.resolve("deflated.npz");
        Npz.write(stored, NpzRoundTripTest.allKinds(), false);
        Npz.write(deflated, NpzRoundTripTest.allKinds(), true);
        Object[] r = python(CHECK_ALL, stored.toString(), deflated.toString());
        assertEquals(0, r[0], (String) r[1]);
        assertEquals("OK", ((String) r[1]).strip());
    }

    @Test
    void numpyReadsAGeneratedExample() throws IOException {
        assumeNumpy();
        Example ex = new DenoisingGenerator().generate(1, 0, 5, 7, 3L).train().get(0);
        Path f = tmp.resolve("ex.npz");
        ExampleIO.write(f, ex);
        StringBuilder labels = new StringBuilder();
        for (int y : ex.labels()) labels.append(y).append(',');
        String script = String.join("\n",
                "import sys, numpy as np",
                "z = np.load(sys.argv[1])",
                "assert z['unary'].dtype == np.float32 and z['unary'].shape == (35, 2)",
                "assert z['edges'].dtype == np.int32 and z['edges'].shape == (58, 2)",
                "assert z['pairwise'].dtype == np.float32 and z['pairwise'].shape == (58, 2)",
                "assert z['labels'].tolist() == [" + labels + "]",
                "assert int(z['num_labels']) == 2 and z['shape'].tolist() == [5, 7]",
                "assert z['edges'][0].tolist() == [0, 1] and z['edges'][30].tolist() == [0, 7]",
                "assert z['edge_type'][:30].tolist() == [0]*30 and z['edge_type'][30:].tolist() == [1]*28",
                "assert z['unary'][34, 1] == np.float32(\"" + ex.unary(34, 1) + "\")",
                "print('OK')");
        Object[] r = python(script, f.toString());
        assertEquals(0, r[0], (String) r[1]);
    }
}
