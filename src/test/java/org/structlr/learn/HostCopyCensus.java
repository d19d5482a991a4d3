package org.structlr.learn;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.inference.HostCopies;
import org.structlr.inference.engines.EngineChoice;

/**
 * The GPU guide's list of host copies per learning iteration on the ND4J path: every call that
 * moves array data between ND4J and the Java heap during one whole iteration (fits, message passing,
 * evaluation of the objective and both errors), counted by {@link HostCopies}, --engine nd4j,
 * default settings otherwise: (linear, linear) on 16 + 16 denoising images of 100x100, and (fcn,
 * linear) on 4 + 4 images of 50x50 (the fcn's own copies: its labels, the images it reads). Run on
 * demand (not part of the suite; it prints the tables and writes target/host-copies*.md):
 * <pre>
 * mvn -B -q test -Dtest=HostCopyCensus -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class HostCopyCensus {
    @Test
    void oneIterationOnTheNd4jPath() throws IOException {
        census(new DenoisingGenerator().generate(16, 16, 1), "linear", "Host copies of iteration 2 of 3, (linear, linear), 16 + 16 images"
                + " of 100x100 (V = 160,000 training variables, E = 316,800 edges, L = 2), --engine nd4j, evaluation every iteration:", "host-copies.md");
    }

    @Test
    void oneFcnIterationOnTheNd4jPath() throws IOException {
        census(new DenoisingGenerator().generate(4, 4, 50, 50, 1), "fcn", "Host copies of iteration 2 of 3, (fcn, linear), 4 + 4 images"
                + " of 50x50 (V = 10,000 training variables, E = 19,600 edges, L = 2), --engine nd4j, evaluation every iteration:", "host-copies-fcn.md");
    }

    private static void census(Dataset data, String unary, String title, String file) throws IOException {
        LearnSettings s = new LearnSettings(3, 0.1, 25, 50, 1, 1).withEngine(EngineChoice.ND4J);
        Map<String, HostCopies.Tally>[] second = new Map[1];
        HostCopies.start();
        Training.train(data, unary, "linear", s, 1, new LearnListener() {
            @Override
            public void onIteration(IterationRecord r, int total) {}

            @Override
            public void onProgress(int it, int total) {
                if (it == 1) HostCopies.reset();
                if (it == 2) second[0] = HostCopies.snapshot();
            }
        });
        HostCopies.stop();
        String table = title + "\n\n" + HostCopies.table(second[0]);
        System.out.println(table);
        Files.writeString(Path.of("target", file), table);
    }
}
