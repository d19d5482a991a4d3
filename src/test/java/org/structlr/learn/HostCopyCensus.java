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
 * The README's list of host copies per learning iteration on the ND4J path (GPU section): every
 * call that moves array data between ND4J and the Java heap during one whole iteration (fits,
 * message passing, evaluation of the objective and both errors), counted by {@link HostCopies} on
 * (linear, linear), 16 + 16 denoising images of 100x100, default settings, --engine nd4j. Run on
 * demand (not part of the suite; it prints the table and writes target/host-copies.md):
 * <pre>
 * mvn -B -q test -Dtest=HostCopyCensus -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class HostCopyCensus {
    @Test
    void oneIterationOnTheNd4jPath() throws IOException {
        Dataset data = new DenoisingGenerator().generate(16, 16, 1);
        LearnSettings s = new LearnSettings(3, 0.1, 25, 50, 1, 1).withEngine(EngineChoice.ND4J);
        Map<String, HostCopies.Tally>[] second = new Map[1];
        HostCopies.start();
        Training.train(data, "linear", "linear", s, 1, new LearnListener() {
            @Override
            public void onIteration(IterationRecord r, int total) {}

            @Override
            public void onProgress(int it, int total) {
                if (it == 1) HostCopies.reset();
                if (it == 2) second[0] = HostCopies.snapshot();
            }
        });
        HostCopies.stop();
        String table = "Host copies of iteration 2 of 3, (linear, linear), 16 + 16 images of 100x100 (V = 160,000 training"
                + " variables, E = 316,800 edges, L = 2), --engine nd4j, evaluation every iteration:\n\n" + HostCopies.table(second[0]);
        System.out.println(table);
        Files.writeString(Path.of("target", "host-copies.md"), table);
    }
}
