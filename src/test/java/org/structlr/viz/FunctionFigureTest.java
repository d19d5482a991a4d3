package org.structlr.viz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.oracle.ScoreFunction;

/** Fig. 1: the plotted values are eps times the model's own functions on the rows [1, phi]. */
class FunctionFigureTest {
    static CrfModel linear;
    static CrfModel boostZero;

    @BeforeAll
    static void train() {
        Dataset d = new DenoisingGenerator().generate(2, 1, 10, 10, 3);
        LearnSettings s = new LearnSettings(2, 0.1, 5, 0, 2);
        linear = Training.train(d, "linear", "linear", s, 1, LearnListener.NONE).model();
        boostZero = Training.train(d, "boost", "zero", s, 1, LearnListener.NONE).model();
    }

    /** eps * g(row [1, phi]) for one phi, evaluated on a one-row matrix of doubles. */
    static double expected(ScoreFunction f, double eps, double phi, int cls) {
        INDArray row = Nd4j.create(new double[][] {{1.0, phi}}).castTo(DataType.FLOAT);
        return eps * f.scores(row).getDouble(0, cls);
    }

    static void assertPlottedValues(CrfModel m) {
        double[] phi = {0.0, 0.13, 0.5, 0.77, 1.0};
        FunctionFigure.Curves c = FunctionFigure.evaluate(m, phi);
        assertEquals(2, c.unary().length);
        assertEquals(m.pair().size(), c.pair().size());
        for (int k = 0; k < phi.length; k++) {
            for (int y = 0; y < 2; y++) {
                assertEquals(expected(m.unary(), m.eps(), phi[k], y), c.unary()[y][k], 1e-6, "unary y=" + y + " phi=" + phi[k]);
            }
            for (int t = 0; t < m.pair().size(); t++) {
                assertEquals(4, c.pair().get(t).length);
                for (int yy = 0; yy < 4; yy++) {
                    assertEquals(expected(m.pair().get(t), m.eps(), phi[k], yy), c.pair().get(t)[yy][k], 1e-6,
                            "pair type " + t + " joint label " + yy + " phi=" + phi[k]);
                }
            }
        }
    }

    @Test
    void plottedValuesAreEpsTimesScoresOfALinearModel() {
        assertEquals(2, linear.pair().size(), "denoising data has horizontal and vertical edge types");
        assertPlottedValues(linear);
        // the unary function of a trained linear model depends on phi: the curves are not flat
        FunctionFigure.Curves c = FunctionFigure.evaluate(linear, new double[] {0, 1});
        assertTrue(Math.abs(c.unary()[1][1] - c.unary()[1][0]) > 1e-6, "flat unary curve");
    }

    @Test
    void plottedValuesOfBoostedTreesAndZero() {
        assertPlottedValues(boostZero);
        FunctionFigure.Curves c = FunctionFigure.evaluate(boostZero, FunctionFigure.grid(11));
        for (double[][] p : c.pair()) for (double[] row : p) for (double v : row) assertEquals(0.0, v, 0.0);
    }

    @Test
    void gridIsEvenlySpacedFromZeroToOne() {
        double[] g = FunctionFigure.grid(5);
        assertEquals(List.of(0.0, 0.25, 0.5, 0.75, 1.0), java.util.Arrays.stream(g).boxed().toList());
        assertThrows(IllegalArgumentException.class, () -> FunctionFigure.grid(1));
    }

    @Test
    void writesAPngOfTheDocumentedSize(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("f.png");
        FunctionFigure.write(png, "t", FunctionFigure.evaluate(linear, FunctionFigure.grid(21)));
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(FunctionFigure.WIDTH, img.getWidth());
        assertEquals(FunctionFigure.HEIGHT, img.getHeight());
        assertFalse(java.nio.file.Files.list(dir).anyMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary file left");
    }
}
