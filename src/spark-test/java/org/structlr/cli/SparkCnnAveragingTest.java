package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.features.HorseLoader;
import org.structlr.features.PatchFeatures;
import org.structlr.learn.IterationRecord;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.StateSink;
import org.structlr.learn.Training;
import org.structlr.spark.SparkTraining;

/**
 * The CNN class through the Spark learner's parameter averaging: on one partition, in rounds of 2
 * mini-batch steps, it is the single-machine CNN fit (identical curve) on 3x3 patch features of
 * synthetic blob images (the same images as PredictImagesTest).
 */
class SparkCnnAveragingTest {
    @TempDir
    Path tmp;

    @Test
    void cnnAveragedOverOnePartitionIsTheSingleMachineFit() throws IOException {
        Path db = tmp.resolve("db");
        Random rnd = new Random(3);
        for (int n = 1; n <= 3; n++) {
            int h = 20 + rnd.nextInt(10), w = 24 + rnd.nextInt(10);
            PredictImagesTest.Blob b = new PredictImagesTest.Blob(h, w, h * 0.5, w * 0.5, Math.min(h, w) * 0.3);
            String name = String.format("horse%03d.png", n);
            PredictImagesTest.write(PredictImagesTest.image(b, n, false), db.resolve("rgb").resolve(name));
            PredictImagesTest.write(PredictImagesTest.mask(b), db.resolve("figure_ground").resolve(name));
        }
        Dataset data = new HorseLoader(db, 12, 16).dataset(new PatchFeatures(3));
        LearnSettings s = new LearnSettings(2, 0.1, 5, 5, 1);
        Training.Outcome one = Training.train(data, "cnn", "zero", s, 1, LearnListener.NONE);
        System.setProperty("spark.structlr.partitions", "1");
        System.setProperty("spark.structlr.averageEvery", "2");
        Training.Outcome spark;
        try {
            spark = new SparkTraining().train("local[2]", data, "cnn", "zero", s, 1, LearnListener.NONE, null, StateSink.NONE);
        } finally {
            System.clearProperty("spark.structlr.partitions");
            System.clearProperty("spark.structlr.averageEvery");
        }
        assertEquals(one.curve().size(), spark.curve().size());
        for (int k = 0; k < one.curve().size(); k++) {
            IterationRecord e = one.curve().get(k), a = spark.curve().get(k);
            assertEquals(e.objective(), a.objective(), 1e-5 * Math.abs(e.objective()), "objective, iteration " + e.iteration());
            assertEquals(e.trainError(), a.trainError(), 0.0);
            assertEquals(e.testError(), a.testError(), 0.0);
        }
    }
}
