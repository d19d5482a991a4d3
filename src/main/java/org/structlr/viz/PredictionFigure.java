package org.structlr.viz;

import java.awt.Color;
import java.awt.Dimension;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.structlr.data.ClassTable;
import org.structlr.data.Example;

/**
 * Example predictions (the paper's Fig. 3): one row per image example, with the input, the true
 * labels, the predicted labels and, when given, the marginal of label 1 as grey (white = 1).
 * Two labels are drawn black (0) and white (1); more labels in their class table's colours (grey
 * levels y / (L - 1) without a table); void pixels (-1) in the void colour (mid grey without a
 * table), and the error of a row counts labelled pixels only.
 *
 * <p>The input: for examples with the 42 horse features (constant, RGB, ...) columns 1-3 as RGB
 * clipped to [0, 1]; for the 3 raw-pixel features ({@code images-data --features rgb}) columns 0-2;
 * otherwise feature column 1 (column 0 when there is only one) as grey, stretched from its smallest
 * to its largest value; for the denoising data that is phi.
 *
 * <p>Every panel is scaled (nearest neighbour, aspect kept, centred) into a {@link #CELL} x
 * {@link #CELL} cell; the image is {@link #size(int, boolean)}.
 */
public final class PredictionFigure {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    public static final int CELL = 160, PAD = 6, HEADER = 22;
    /** Unary feature width of the horse data: constant, RGB, position (2), HOG (36). */
    public static final int HORSE_FEATURES = 42;

    private PredictionFigure() {}

    /**
     * One row: an image of {@code height x width} pixels; {@code input} packed RGB per pixel;
     * {@code truth} may be null (unlabelled), {@code marginal} may be null (not drawn).
     */
    public record Row(String name, int height, int width, int numLabels, int[] input, int[] truth, int[] predicted, double[] marginal,
                      ClassTable classes) {
        /** A row without a class table. */
        public Row(String name, int height, int width, int numLabels, int[] input, int[] truth, int[] predicted, double[] marginal) {
            this(name, height, width, numLabels, input, truth, predicted, marginal, null);
        }

        public Row {
            int v = height * width;
            if (height < 1 || width < 1) throw new IllegalArgumentException("bad shape " + height + "x" + width);
            if (input.length != v || predicted.length != v || (truth != null && truth.length != v) || (marginal != null && marginal.length != v)) {
                throw new IllegalArgumentException("arrays do not match the shape " + height + "x" + width);
            }
        }

        /** Fraction of wrong labels among the labelled pixels, or NaN without true labels. */
        public double error() {
            if (truth == null) return Double.NaN;
            int wrong = 0, labelled = 0;
            for (int i = 0; i < truth.length; i++) {
                if (truth[i] == Example.VOID) continue;
                labelled++;
                if (truth[i] != predicted[i]) wrong++;
            }
            return labelled == 0 ? Double.NaN : (double) wrong / labelled;
        }
    }

    /** A row for an example with an image shape; {@code marginal1} (may be null) is P(y = 1) per pixel. */
    public static Row row(Example ex, int numLabels, int[] predicted, double[] marginal1) {
        return row(ex, numLabels, predicted, marginal1, null);
    }

    /** As {@link #row(Example, int, int[], double[])}, labels drawn in the colours of {@code classes} (may be null). */
    public static Row row(Example ex, int numLabels, int[] predicted, double[] marginal1, ClassTable classes) {
        int[] s = ex.shape().orElseThrow(() -> new IllegalArgumentException(ex.name() + " has no image shape"));
        return new Row(ex.name(), s[0], s[1], numLabels, input(ex), ex.hasLabels() ? ex.labels() : null, predicted, marginal1, classes);
    }

    /** The input rendered as packed RGB per pixel (see the class comment). */
    public static int[] input(Example ex) {
        int v = ex.numVariables(), d = ex.unaryDim();
        int[] out = new int[v];
        if (d == HORSE_FEATURES) {
            for (int i = 0; i < v; i++) out[i] = rgb(ex.unary(i, 1), ex.unary(i, 2), ex.unary(i, 3));
            return out;
        }
        if (d == 3) {
            for (int i = 0; i < v; i++) out[i] = rgb(ex.unary(i, 0), ex.unary(i, 1), ex.unary(i, 2));
            return out;
        }
        int col = d >= 2 ? 1 : 0;
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < v; i++) {
            lo = Math.min(lo, ex.unary(i, col));
            hi = Math.max(hi, ex.unary(i, col));
        }
        double range = hi > lo ? hi - lo : 1;
        for (int i = 0; i < v; i++) {
            double g = (ex.unary(i, col) - lo) / range;
            out[i] = rgb(g, g, g);
        }
        return out;
    }

    static int rgb(double r, double g, double b) {
        return (channel(r) << 16) | (channel(g) << 8) | channel(b);
    }

    private static int channel(double x) {
        double c = Double.isFinite(x) ? Math.max(0, Math.min(1, x)) : 0;
        return (int) Math.round(255 * c);
    }

    /** Labels as colours (see the class comment). */
    private static int[] labelColours(int[] y, int numLabels, ClassTable classes) {
        int[] out = new int[y.length];
        for (int i = 0; i < y.length; i++) {
            if (classes != null && (numLabels > 2 || y[i] == Example.VOID)) {
                out[i] = classes.color(y[i]);
            } else if (y[i] == Example.VOID) {
                out[i] = rgb(0.5, 0.5, 0.5);
            } else {
                double g = numLabels > 1 ? (double) y[i] / (numLabels - 1) : 0;
                out[i] = rgb(g, g, g);
            }
        }
        return out;
    }

    /** Image size in pixels for {@code rows} rows, with or without the marginal column. */
    public static Dimension size(int rows, boolean marginals) {
        int cols = marginals ? 4 : 3;
        return new Dimension(cols * CELL + (cols + 1) * PAD, HEADER + rows * CELL + (rows + 1) * PAD);
    }

    public static BufferedImage render(List<Row> rows) {
        if (rows.isEmpty()) throw new IllegalArgumentException("no rows");
        boolean marg = rows.stream().anyMatch(r -> r.marginal() != null);
        Dimension dim = size(rows.size(), marg);
        BufferedImage img = new BufferedImage(dim.width, dim.height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, dim.width, dim.height);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_NEAREST_NEIGHBOR);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            g.setColor(Color.BLACK);
            String[] titles = {"input", "true labels", "predicted labels", "P(y = 1)"};
            for (int c = 0; c < (marg ? 4 : 3); c++) g.drawString(titles[c], PAD + c * (CELL + PAD) + 4, HEADER - 6);
            for (int r = 0; r < rows.size(); r++) {
                Row row = rows.get(r);
                int top = HEADER + PAD + r * (CELL + PAD);
                panel(g, row, row.input(), PAD, top);
                if (row.truth() != null) panel(g, row, labelColours(row.truth(), row.numLabels(), row.classes()), PAD + (CELL + PAD), top);
                else caption(g, "no labels", PAD + (CELL + PAD), top + CELL / 2);
                panel(g, row, labelColours(row.predicted(), row.numLabels(), row.classes()), PAD + 2 * (CELL + PAD), top);
                if (!Double.isNaN(row.error())) {
                    caption(g, String.format(Locale.ROOT, "error %.4f", row.error()), PAD + 2 * (CELL + PAD) + 2, top + 14);
                }
                if (row.marginal() != null) {
                    int[] m = new int[row.marginal().length];
                    for (int i = 0; i < m.length; i++) m[i] = rgb(row.marginal()[i], row.marginal()[i], row.marginal()[i]);
                    panel(g, row, m, PAD + 3 * (CELL + PAD), top);
                }
            }
        } finally {
            g.dispose();
        }
        return img;
    }

    private static void caption(Graphics2D g, String text, int x, int y) {
        int w = g.getFontMetrics().stringWidth(text);
        g.setColor(new Color(255, 255, 255, 200));
        g.fillRect(x - 1, y - 12, w + 4, 15);
        g.setColor(new Color(200, 0, 0));
        g.drawString(text, x + 1, y);
    }

    /** Draws an h x w packed-RGB image scaled into the cell at (x, y), aspect kept, centred. */
    private static void panel(Graphics2D g, Row row, int[] pixels, int x, int y) {
        BufferedImage src = new BufferedImage(row.width(), row.height(), BufferedImage.TYPE_INT_RGB);
        src.setRGB(0, 0, row.width(), row.height(), pixels, 0, row.width());
        double scale = Math.min((double) CELL / row.width(), (double) CELL / row.height());
        int w = Math.max(1, (int) Math.round(row.width() * scale)), h = Math.max(1, (int) Math.round(row.height() * scale));
        g.drawImage(src, x + (CELL - w) / 2, y + (CELL - h) / 2, w, h, null);
    }

    public static void write(Path png, List<Row> rows) throws IOException {
        ChartGrid.savePng(render(rows), png);
    }
}
