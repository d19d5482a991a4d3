package org.structlr.viz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.oracle.linear.ConstantScore;
import org.structlr.oracle.ScoreFunction;

class PairStrengthFigureTest {

    /**
     * With a constant pairwise table per direction, every horizontal edge has strength
     * g(0,0) + g(1,1) - g(0,1) - g(1,0) of the horizontal table at its left pixel, every vertical
     * edge that of the vertical table at its upper pixel, and the last column / row have none.
     */
    @Test
    void strengthsAreTheCouplingOfEachDirectionsTable(@TempDir Path tmp) throws Exception {
        Example ex = new DenoisingGenerator(2.0, true).generate(1, 0, 5, 7, 3).train().get(0);
        List<ScoreFunction> pair = List.of(new ConstantScore(new double[]{1.5, -0.25, 0.5, 2.0}),   // horizontal: 1.5 + 2 + 0.25 - 0.5 = 3.25
                new ConstantScore(new double[]{-1.0, 0.75, 0.25, 0.5}));                           // vertical: -1 + 0.5 - 0.75 - 0.25 = -1.5
        CrfModel model = new CrfModel(2, 0.1, ex.unaryDim(), ex.pairDim(), List.of("horizontal", "vertical"),
                new ConstantScore(new double[]{0, 0}), pair, Map.of(), Map.of());
        double[][] s = PairStrengthFigure.strengths(model, ex);
        for (int r = 0; r < 5; r++) {
            for (int c = 0; c < 7; c++) {
                int i = r * 7 + c;
                if (c < 6) assertEquals(3.25, s[0][i], 1e-5, "horizontal at " + r + "," + c);
                else assertTrue(Double.isNaN(s[0][i]), "no right edge at the last column");
                if (r < 4) assertEquals(-1.5, s[1][i], 1e-5, "vertical at " + r + "," + c);
                else assertTrue(Double.isNaN(s[1][i]), "no down edge at the last row");
            }
        }
        Path png = tmp.resolve("s.png");
        PairStrengthFigure.write(png, "test", model, ex);
        assertTrue(Files.size(png) > 0);
        assertEquals(3 * PairStrengthFigure.CELL + 4 * PairStrengthFigure.PAD, javax.imageio.ImageIO.read(png.toFile()).getWidth());
    }
}
