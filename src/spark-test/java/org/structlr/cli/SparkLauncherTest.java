package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;

/**
 * {@code bin/structlr train --spark local[2]} in the Spark build, without a Spark installation: the
 * launcher puts Spark's jars (target/spark/lib, copied by the -Pspark build; lib/spark/ in the
 * distribution) on the class path itself. The launched class path is this build's classes and
 * dependencies WITHOUT Spark's jars (they are `provided`), so Spark can only come from the launcher.
 * The Spark run's learning curve equals the one-machine run's (objective within 1e-5 relative,
 * the same errors), as SparkLocalTest shows in-process.
 */
class SparkLauncherTest {
    @TempDir
    Path dir;

    @Test
    void trainSparkLocal2ThroughTheLauncherGivesTheOneMachineCurve() throws Exception {
        Path sparkJars = Path.of("target", "spark", "lib").toAbsolutePath();
        assertTrue(Files.isDirectory(sparkJars), "the -Pspark build copies Spark's jars to " + sparkJars);
        Set<String> spark;
        try (Stream<Path> s = Files.list(sparkJars)) {
            spark = s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
        assertTrue(spark.stream().anyMatch(n -> n.startsWith("spark-core_2.12-")), "Spark's jars in " + sparkJars + ": " + spark);
        List<Path> withoutSpark = LauncherTest.mainClassPath().stream()
                .filter(p -> !spark.contains(p.getFileName().toString())).toList();
        assertTrue(withoutSpark.stream().noneMatch(p -> p.getFileName().toString().startsWith("spark-core")), withoutSpark.toString());

        // a checkout's layout: bin/structlr, target/structlr-spark.jar, target/spark/lib -> the build's Spark jars
        Path checkout = dir.resolve("checkout");
        LauncherTest.install(checkout);
        LauncherTest.manifestJar(checkout.resolve("target").resolve("structlr-spark.jar"), withoutSpark);
        Files.createDirectories(checkout.resolve("target").resolve("spark"));
        Files.createSymbolicLink(checkout.resolve("target").resolve("spark").resolve("lib"), sparkJars);
        Path launcher = checkout.resolve("bin").resolve("structlr");

        Path data = dir.resolve("data");
        new DenoisingGenerator().generateTo(data, 4, 2, 16, 16, 17);
        String[] train = {"train", "--data", data.toString(), "--unary", "linear", "--pairwise", "linear", "--iterations", "3",
                "--sweeps", "10", "--eval-sweeps", "10", "--quiet", "--threads", "1"};
        LauncherTest.Run one = LauncherTest.run(launcher, Map.of(),
                LauncherTest.with(train, "--csv", dir.resolve("one.csv").toString(), "--output", dir.resolve("one").toString()));
        assertEquals(0, one.code(), one.err());
        LauncherTest.Run onSpark = LauncherTest.run(launcher, Map.of(), LauncherTest.with(train, "--spark", "local[2]",
                "--csv", dir.resolve("spark.csv").toString(), "--output", dir.resolve("spark").toString()));
        assertEquals(0, onSpark.code(), onSpark.err());
        assertFalse(onSpark.err().contains("this build has no Spark"), onSpark.err());

        List<double[]> a = curve(dir.resolve("one.csv")), b = curve(dir.resolve("spark.csv"));
        assertEquals(3, a.size());
        assertEquals(a.size(), b.size());
        for (int k = 0; k < a.size(); k++) {
            assertEquals(a.get(k)[1], b.get(k)[1], 1e-5 * Math.abs(a.get(k)[1]), "objective, iteration " + (k + 1));
            assertEquals(a.get(k)[2], b.get(k)[2], 0.0, "training error, iteration " + (k + 1));
            assertEquals(a.get(k)[3], b.get(k)[3], 0.0, "test error, iteration " + (k + 1));
        }
        assertTrue(a.get(2)[1] < a.get(0)[1], "the objective decreases");
    }

    /** iteration, objective, train_error, test_error of each line of a --csv curve. */
    static List<double[]> curve(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        assertEquals("iteration,objective,train_error,test_error,seconds,learning_seconds", lines.get(0));
        return lines.stream().skip(1).map(l -> Stream.of(l.split(",")).limit(4).mapToDouble(Double::parseDouble).toArray()).toList();
    }
}
