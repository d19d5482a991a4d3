package org.structlr.viz;

import java.awt.AlphaComposite;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.imageio.ImageIO;

/**
 * Predictions on photos at their own size: one row per photo with the photo, the mask {@code predict}
 * wrote for it (white = label 1) and the mask laid over the photo in red, every panel scaled by one
 * factor per row so photos keep their aspect ratio and their relative sizes within a row.
 */
public final class PhotoMaskFigure {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    static final int HEIGHT = 200, PAD = 8, LABEL = 18;

    private PhotoMaskFigure() {}

    /** A photo and its mask (same size, else refused). */
    public record Row(String name, BufferedImage photo, BufferedImage mask) {
        public Row {
            if (photo.getWidth() != mask.getWidth() || photo.getHeight() != mask.getHeight()) {
                throw new IllegalArgumentException(name + ": mask " + mask.getWidth() + "x" + mask.getHeight() + " is not the photo's size "
                        + photo.getWidth() + "x" + photo.getHeight());
            }
        }
    }

    /** The photo with the mask's white pixels tinted red (half transparent). */
    static BufferedImage overlay(Row r) {
        int w = r.photo().getWidth(), h = r.photo().getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int p = r.photo().getRGB(x, y), on = r.mask().getRGB(x, y) & 0xff;
                if (on < 128) {
                    out.setRGB(x, y, p);
                    continue;
                }
                int red = ((p >> 16 & 0xff) + 255) / 2, green = (p >> 8 & 0xff) / 2, blue = (p & 0xff) / 2;
                out.setRGB(x, y, red << 16 | green << 8 | blue);
            }
        }
        return out;
    }

    public static BufferedImage render(List<Row> rows) {
        int width = 0, height = PAD;
        List<Integer> widths = new ArrayList<>();
        for (Row r : rows) {
            int w = (int) Math.round((double) r.photo().getWidth() * HEIGHT / r.photo().getHeight());
            widths.add(w);
            width = Math.max(width, 3 * w + 4 * PAD);
            height += HEIGHT + LABEL + PAD;
        }
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, width, height);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.setComposite(AlphaComposite.SrcOver);
        int y = PAD;
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            int w = widths.get(i);
            g.setColor(Color.BLACK);
            g.drawString(r.name() + " (" + r.photo().getWidth() + "x" + r.photo().getHeight() + "): photo, mask, overlay", PAD, y + 13);
            BufferedImage[] panels = {r.photo(), r.mask(), overlay(r)};
            for (int p = 0; p < 3; p++) g.drawImage(panels[p], PAD + p * (w + PAD), y + LABEL, w, HEIGHT, null);
            y += HEIGHT + LABEL + PAD;
        }
        g.dispose();
        return img;
    }

    /** {@code java -cp structlr.jar org.structlr.viz.PhotoMaskFigure OUT.png PHOTO MASK [PHOTO MASK ...]}. */
    public static void main(String[] args) throws IOException {
        if (args.length < 3 || args.length % 2 == 0) {
            System.err.println("usage: PhotoMaskFigure OUT.png PHOTO MASK [PHOTO MASK ...]");
            System.exit(2);
        }
        List<Row> rows = new ArrayList<>();
        for (int i = 1; i < args.length; i += 2) {
            BufferedImage photo = ImageIO.read(Path.of(args[i]).toFile()), mask = ImageIO.read(Path.of(args[i + 1]).toFile());
            if (photo == null || mask == null) throw new IOException(args[photo == null ? i : i + 1] + ": not a readable image");
            rows.add(new Row(Path.of(args[i]).getFileName().toString(), photo, mask));
        }
        ChartGrid.savePng(render(rows), Path.of(args[0]));
    }
}
