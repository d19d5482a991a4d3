package org.structlr.viz;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.structlr.data.AtomicFiles;

/** Several XChart charts of one size drawn into one image, row by row (small multiples). */
final class ChartGrid {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private ChartGrid() {}

    /**
     * The charts in a grid of {@code columns} columns (row-major), each rendered at its own size;
     * every cell is as large as the first chart. Empty cells stay white.
     */
    public static BufferedImage render(List<XYChart> charts, int columns) {
        if (charts.isEmpty()) throw new IllegalArgumentException("no charts");
        if (columns < 1) throw new IllegalArgumentException("columns must be at least 1, got " + columns);
        int cw = charts.get(0).getWidth(), ch = charts.get(0).getHeight();
        int rows = (charts.size() + columns - 1) / columns;
        int cols = Math.min(columns, charts.size());
        BufferedImage img = new BufferedImage(cols * cw, rows * ch, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, img.getWidth(), img.getHeight());
            for (int k = 0; k < charts.size(); k++) {
                BufferedImage cell = BitmapEncoder.getBufferedImage(charts.get(k));
                g.drawImage(cell, (k % columns) * cw, (k / columns) * ch, cw, ch, null);
            }
        } finally {
            g.dispose();
        }
        return img;
    }

    /** Writes an image as PNG through a temporary file (never a truncated file under the final name). */
    public static void savePng(BufferedImage img, Path png) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        if (!ImageIO.write(img, "png", bytes)) throw new IOException("no PNG writer available");
        byte[] b = bytes.toByteArray();
        AtomicFiles.write(png, out -> out.write(b));
    }
}
