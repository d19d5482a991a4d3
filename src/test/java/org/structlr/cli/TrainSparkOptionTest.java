package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.ClusterTraining;

/**
 * {@code train --spark} in a build without Spark (the default build) is one clear error, exit 2,
 * before any data is read and without a model; in the {@code -Pspark} build the same command trains
 * on an embedded Spark (the Spark tests cover its numbers).
 */
class TrainSparkOptionTest {
    @TempDir
    Path tmp;

    @Test
    void sparkOptionNeedsTheSparkBuild() throws IOException {
        Path data = tmp.resolve("data"), model = tmp.resolve("model");
        new DenoisingGenerator().generateTo(data, 1, 1, 6, 6, 3);
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "train", "--data", data.toString(),
                "--spark", "local[1]", "--unary", "const", "--pairwise", "zero", "--iterations", "1", "--sweeps", "2", "--eval-sweeps", "2",
                "--output", model.toString(), "--quiet");
        boolean sparkBuild = ServiceLoader.load(ClusterTraining.class).findFirst().isPresent();
        if (sparkBuild) {
            assertEquals(Main.EXIT_OK, code, err.toString());
            assertTrue(Files.isDirectory(model));
        } else {
            assertEquals(Main.EXIT_USAGE, code);
            assertEquals("error: --spark: this build has no Spark; build with -Pspark (mvn -B -Pspark package), then run bin/structlr,"
                    + " which finds the Spark jars, or spark-submit target/structlr-spark.jar", err.toString().strip());
            assertFalse(Files.exists(model), "no model written");
        }
    }

    /** {@code predict --spark} likewise: the one error and no output in the default build (the Spark build's test is SparkPredictTest). */
    @Test
    void predictSparkOptionNeedsTheSparkBuild() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeFalse(ServiceLoader.load(org.structlr.model.ClusterPrediction.class).findFirst().isPresent(),
                "the Spark build: predict --spark is SparkPredictTest's");
        Path in = tmp.resolve("in.npz"), out = tmp.resolve("out.npz"), model = tmp.resolve("model");
        Files.createDirectories(model);
        org.structlr.data.ExampleIO.write(in, new DenoisingGenerator().generate(1, 0, 6, 6, 3).train().get(0));
        StringWriter o = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(o, true), new PrintWriter(err, true), "predict", "--model", model.toString(),
                "--input", in.toString(), "--output", out.toString(), "--spark", "local[2]", "--quiet");
        assertEquals(Main.EXIT_USAGE, code);
        assertEquals("error: --spark: this build has no Spark; build with -Pspark (mvn -B -Pspark package), then run bin/structlr,"
                + " which finds the Spark jars, or spark-submit target/structlr-spark.jar", err.toString().strip());
        assertFalse(Files.exists(out), "nothing written");
    }
}
