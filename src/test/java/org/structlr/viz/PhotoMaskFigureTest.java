package org.structlr.viz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.image.BufferedImage;
import java.util.List;

import org.junit.jupiter.api.Test;

class PhotoMaskFigureTest {

    /** Masked pixels are tinted red, the others keep the photo's colour; rows keep the photo's aspect ratio. */
    @Test
    void overlayTintsMaskedPixelsAndPanelsKeepTheAspectRatio() {
        BufferedImage photo = new BufferedImage(4, 2, BufferedImage.TYPE_INT_RGB), mask = new BufferedImage(4, 2, BufferedImage.TYPE_INT_RGB);
        for (int x = 0; x < 4; x++) for (int y = 0; y < 2; y++) photo.setRGB(x, y, 0x204060);
        mask.setRGB(1, 0, 0xffffff);
        PhotoMaskFigure.Row row = new PhotoMaskFigure.Row("p", photo, mask);
        BufferedImage o = PhotoMaskFigure.overlay(row);
        assertEquals(0x204060, o.getRGB(0, 0) & 0xffffff);
        assertEquals(((0x20 + 255) / 2) << 16 | (0x40 / 2) << 8 | 0x60 / 2, o.getRGB(1, 0) & 0xffffff);
        BufferedImage fig = PhotoMaskFigure.render(List.of(row));
        assertEquals(3 * (4 * PhotoMaskFigure.HEIGHT / 2) + 4 * PhotoMaskFigure.PAD, fig.getWidth());
        assertThrows(IllegalArgumentException.class, () -> new PhotoMaskFigure.Row("q", photo, new BufferedImage(2, 4, BufferedImage.TYPE_INT_RGB)));
    }
}
