package org.structlr.viz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.Dimension;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Example;

/** Fig. 3: the input rendering (horse RGB, denoising grey), the label colours, the image size. */
class PredictionFigureTest {
    /** A 2x3 image with {@code d} unary features; feature j of pixel i is (i + 1) * (j + 1) / 100, RGB 0.1/0.5/0.9. */
    static Example image(int d) {
        int h = 2, w = 3, v = h * w;
        float[] u = new float[v * d];
        for (int i = 0; i < v; i++) for (int j = 0; j < d; j++) u[i * d + j] = (i + 1) * (j + 1) / 100f;
        if (d == PredictionFigure.HORSE_FEATURES) {
            for (int i = 0; i < v; i++) {
                u[i * d + 1] = 0.1f;
                u[i * d + 2] = 0.5f;
                u[i * d + 3] = i == 0 ? 1.7f : 0.9f; // clipped to 1
            }
        }
        int[] edges = {0, 1, 1, 2, 3, 4, 4, 5, 0, 3, 1, 4, 2, 5};
        float[] p = new float[7];
        java.util.Arrays.fill(p, 1f);
        return Example.builder(u, d, edges, p, 1).labels(new int[] {0, 1, 0, 1, 1, 0}).shape(h, w)
                .edgeType(new int[] {0, 0, 0, 0, 1, 1, 1}).build();
    }

    @Test
    void horseInputIsRgbOfColumnsOneToThree() {
        int[] px = PredictionFigure.input(image(42));
        assertEquals((26 << 16) | (128 << 8) | 255, px[0]);
        assertEquals((26 << 16) | (128 << 8) | (int) Math.round(255 * (double) 0.9f), px[1]);
    }

    @Test
    void denoisingInputIsPhiStretchedToGrey() {
        int[] px = PredictionFigure.input(image(2)); // phi = (i + 1) * 2 / 100: 0.02 .. 0.12
        assertEquals(0, px[0]);
        assertEquals(0xFFFFFF, px[5]);
        int g = (int) Math.round(255 * 0.4);
        assertEquals((g << 16) | (g << 8) | g, px[2]);
    }

    @Test
    void imageHasTheDocumentedSizeAndLabelColours(@TempDir Path dir) throws Exception {
        Example ex = image(2);
        PredictionFigure.Row row = PredictionFigure.row(ex, 2, new int[] {0, 1, 1, 1, 1, 0}, new double[] {0, 1, 1, 1, 1, 0});
        assertEquals(1.0 / 6, row.error(), 1e-12);
        Path png = dir.resolve("p.png");
        PredictionFigure.write(png, List.of(row, row));
        BufferedImage img = ImageIO.read(png.toFile());
        Dimension d = PredictionFigure.size(2, true);
        assertEquals(d.width, img.getWidth());
        assertEquals(d.height, img.getHeight());
        assertEquals(4 * PredictionFigure.CELL + 5 * PredictionFigure.PAD, d.width);
        // true labels cell of row 0: scale 160/3, the image is 160 x 107 centred; pixel (r0, c1) has label 1 = white
        int x0 = PredictionFigure.PAD + PredictionFigure.CELL + PredictionFigure.PAD;
        int y0 = PredictionFigure.HEADER + PredictionFigure.PAD + (PredictionFigure.CELL - 107) / 2;
        assertEquals(0xFFFFFF, img.getRGB(x0 + 80, y0 + 20) & 0xFFFFFF);
        assertEquals(0x000000, img.getRGB(x0 + 20, y0 + 20) & 0xFFFFFF);
    }

    @Test
    void refusesArraysThatDoNotMatchTheShape() {
        Example ex = image(2);
        assertThrows(IllegalArgumentException.class, () -> PredictionFigure.row(ex, 2, new int[5], null));
    }
}
