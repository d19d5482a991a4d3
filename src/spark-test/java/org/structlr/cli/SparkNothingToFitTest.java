package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.ExampleIO;

/**
 * {@code train --spark}: a pairwise type without a training edge (edge_type 1 only in the test split)
 * is not fitted, as on one machine ({@link NothingToFitTest}): the run trains, the type's function
 * stays zero, and for the linear class one machine's curve (objective within 1e-5 relative, the same
 * errors). Before, the partitions' fits failed on a type without rows ('biased logistic problem:
 * features must be [N, D] with N, D >= 1, got [0, 2]').
 */
class SparkNothingToFitTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"linear", "mlp"})
    void aTypeWithoutATrainingEdgeIsNotFittedOnSparkEither(String pairwise) throws IOException {
        Path d = tmp.resolve("d");
        new DenoisingGenerator().generateTo(d, 4, 2, 8, 8, 11);   // edge_type 0 horizontal, 1 vertical
        try (Stream<Path> s = Files.list(d.resolve("train"))) {
            for (Path p : s.sorted().toList()) ExampleIO.write(p, NothingToFitTest.with(ExampleIO.read(p), y -> y, t -> new int[t.length]));
        }
        TrainPredictCommandTest.Run one = TrainPredictCommandTest.run(TrainPredictCommandTest.train(d, tmp.resolve("one"), "--pairwise", pairwise));
        TrainPredictCommandTest.Run two = TrainPredictCommandTest.run(TrainPredictCommandTest.train(d, tmp.resolve("two"), "--pairwise", pairwise,
                "--spark", "local[2]"));
        assertEquals(0, one.code(), one.err());
        assertEquals(0, two.code(), two.err());
        assertEquals(1, NothingToFitTest.warnings(one).size(), one.err());
        // (no warning on Spark: the executors read the examples, the driver never sees their edges)
        assertEquals(List.of(pairwise, "zero"), NothingToFitTest.pairKinds(tmp.resolve("two/model")));
        NothingToFitTest.assertFiniteCurve(tmp.resolve("two/r.json"));
        if (pairwise.equals("linear")) assertOneMachinesCurve(tmp.resolve("one/c.csv"), tmp.resolve("two/c.csv"));
        // (mlp on Spark averages networks: not one machine's bits, docs/guide/spark.md)
    }

    /** The same iterations, objectives within 1e-5 relative and the same errors in two --csv curves. */
    private static void assertOneMachinesCurve(Path oneCsv, Path sparkCsv) throws IOException {
        List<String> a = Files.readAllLines(oneCsv), b = Files.readAllLines(sparkCsv);
        assertEquals(a.size(), b.size());
        for (int k = 1; k < a.size(); k++) {
            String[] x = a.get(k).split(","), y = b.get(k).split(",");
            assertEquals(x[0], y[0], "iteration");
            assertEquals(Double.parseDouble(x[1]), Double.parseDouble(y[1]), 1e-5 * Math.abs(Double.parseDouble(x[1])), "objective, row " + k);
            assertEquals(x[2], y[2], "training error, row " + k);
            assertEquals(x[3], y[3], "test error, row " + k);
        }
    }
}
