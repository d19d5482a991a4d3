package org.structlr.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * A child JVM whose class path holds only the dependency jars (DL4J, ND4J, XGBoost4J, ...), never
 * structlr's own classes: it restores exported files the way a user without structlr would and
 * writes what they compute. The checker program is compiled at test time into a temp folder.
 */
final class PlainRuntime {
    private PlainRuntime() {}

    static final String CHECKER = """
            import java.io.File;
            import java.nio.file.Files;
            import java.nio.file.Path;
            import java.util.List;
            import ml.dmlc.xgboost4j.java.Booster;
            import ml.dmlc.xgboost4j.java.DMatrix;
            import ml.dmlc.xgboost4j.java.XGBoost;
            import org.deeplearning4j.nn.graph.ComputationGraph;
            import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
            import org.deeplearning4j.util.ModelSerializer;
            import org.nd4j.linalg.api.buffer.DataType;
            import org.nd4j.linalg.api.ndarray.INDArray;
            import org.nd4j.linalg.factory.Nd4j;

            /**
             * args: (model file, features csv, output csv)...; .zip = DL4J network, else XGBoost model. A
             * features csv whose first line is "image,H,W" holds one image's H*W pixel rows (row r*W+c):
             * the zip is then a ComputationGraph run on the whole image [1, D, H, W], and the output is
             * written one row per pixel (its output channels).
             */
            public class PlainChecker {
                public static void main(String[] a) throws Exception {
                    try {
                        Class.forName("org.structlr.model.CrfModel");
                        System.out.println("structlr is on the class path");
                        System.exit(3);
                    } catch (ClassNotFoundException expected) {
                    }
                    for (int k = 0; k + 2 < a.length; k += 3) {
                        List<String> lines = Files.readAllLines(Path.of(a[k + 1]));
                        int ih = -1, iw = -1;
                        if (lines.get(0).startsWith("image,")) {
                            String[] hw = lines.get(0).split(",");
                            ih = Integer.parseInt(hw[1]);
                            iw = Integer.parseInt(hw[2]);
                            lines = lines.subList(1, lines.size());
                        }
                        int n = lines.size(), d = lines.get(0).split(",").length;
                        double[][] x = new double[n][d];
                        for (int i = 0; i < n; i++) {
                            String[] f = lines.get(i).split(",");
                            for (int j = 0; j < d; j++) x[i][j] = Double.parseDouble(f[j]);
                        }
                        double[][] out;
                        if (ih > 0) {
                            ComputationGraph g = ModelSerializer.restoreComputationGraph(new File(a[k]), false);
                            INDArray img = Nd4j.createFromArray(x).reshape(ih, iw, d).permute(2, 0, 1).reshape(1, d, ih, iw)
                                    .castTo(g.params().dataType());
                            INDArray o = g.output(img)[0];
                            long ch = o.size(1);
                            out = o.reshape(ch, (long) ih * iw).transpose().castTo(DataType.DOUBLE).toDoubleMatrix();
                        } else if (a[k].endsWith(".zip")) {
                            MultiLayerNetwork net = ModelSerializer.restoreMultiLayerNetwork(new File(a[k]), false);
                            INDArray in = Nd4j.createFromArray(x).castTo(net.params().dataType());
                            out = net.output(in).castTo(DataType.DOUBLE).toDoubleMatrix();
                        } else {
                            Booster b = XGBoost.loadModel(a[k]);
                            float[] flat = new float[n * d];
                            for (int i = 0; i < n; i++) for (int j = 0; j < d; j++) flat[i * d + j] = (float) x[i][j];
                            DMatrix dm = new DMatrix(flat, n, d, Float.NaN);
                            float[][] m = b.predict(dm, true);
                            out = new double[n][];
                            for (int i = 0; i < n; i++) {
                                out[i] = new double[m[i].length];
                                for (int j = 0; j < m[i].length; j++) out[i][j] = m[i][j];
                            }
                        }
                        StringBuilder sb = new StringBuilder();
                        for (double[] row : out) {
                            for (int j = 0; j < row.length; j++) sb.append(j == 0 ? "" : ",").append(row[j]);
                            sb.append('\\n');
                        }
                        Files.writeString(Path.of(a[k + 2]), sb.toString());
                    }
                    System.out.println("ok");
                }
            }
            """;

    /** The test class path minus the project's own folders: the dependency jars only. */
    static List<String> dependencyJars() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> jars = new ArrayList<>();
        for (String e : cp.split(File.pathSeparator)) {
            if (e.isEmpty() || !e.endsWith(".jar") || !Files.isRegularFile(Path.of(e))) continue;   // drops target/classes, target/test-classes
            if (e.contains("surefire")) continue;
            jars.add(e);
        }
        assertFalse(jars.isEmpty(), "no dependency jars found on " + cp);
        assertTrue(jars.stream().anyMatch(j -> j.contains("deeplearning4j-nn")), "DL4J jar missing from " + jars);
        return jars;
    }

    /** Compiles the checker into {@code work} and runs it on (model, features, output) triples; fails on a non-zero exit. */
    static String run(Path work, List<String> triples) throws IOException, InterruptedException {
        Path src = work.resolve("src");
        Path bin = work.resolve("bin");
        Files.createDirectories(src);
        Files.createDirectories(bin);
        Path file = src.resolve("PlainChecker.java");
        Files.writeString(file, CHECKER);
        String deps = String.join(File.pathSeparator, dependencyJars());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "no system Java compiler (run the tests on a JDK)");
        int rc = javac.run(null, null, null, "-classpath", deps, "-d", bin.toString(), file.toString());
        assertEquals(0, rc, "checker did not compile");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-cp", bin + File.pathSeparator + deps, "PlainChecker"));
        cmd.addAll(triples);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "checker timed out");
        assertEquals(0, p.exitValue(), "checker failed:\n" + out);
        return out;
    }

    static void writeCsv(Path file, double[][] x) throws IOException {
        Files.writeString(file, java.util.Arrays.stream(x)
                .map(r -> java.util.Arrays.stream(r).mapToObj(Double::toString).collect(Collectors.joining(",")))
                .collect(Collectors.joining("\n")) + "\n");
    }

    static double[][] readCsv(Path file) throws IOException {
        return Files.readAllLines(file).stream().filter(l -> !l.isBlank())
                .map(l -> java.util.Arrays.stream(l.split(",")).mapToDouble(Double::parseDouble).toArray())
                .toArray(double[][]::new);
    }
}
