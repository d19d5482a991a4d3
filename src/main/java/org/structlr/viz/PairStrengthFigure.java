package org.structlr.viz;

import org.structlr.model.Potentials;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.Example;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;

/**
 * The learned pairwise strength on one image: for every grid edge (i, j) with two labels, the
 * coupling of its learned pairwise function
 * <pre>
 *   s_ij = g_ij(0,0) + g_ij(1,1) - g_ij(0,1) - g_ij(1,0)
 * </pre>
 * (positive: the two pixels prefer the same label; with more labels: mean g of equal labels minus
 * mean g of different labels). Three panels at the image's own aspect ratio: the input, the
 * horizontal edges (drawn at their left pixel) and the vertical edges (at their upper pixel), grey
 * from the smallest (black) to the largest (white) strength over both directions, the range in the
 * header. It works for any pairwise class (fcn, mlp, linear, ...): g is read through the model's
 * potentials of this one image.
 */
public final class PairStrengthFigure {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    static final int CELL = 240, PAD = 8, HEADER = 24;

    private PairStrengthFigure() {}

    /** Per pixel (row-major) the strength of its right edge and of its down edge; NaN where there is none. */
    public static double[][] strengths(CrfModel model, Example ex) {
        int[] shape = ex.shape().orElseThrow(() -> new IllegalArgumentException(ex.name() + ": not an image (no shape)"));
        int h = shape[0], w = shape[1], l = model.numLabels();
        ExampleBatch batch = new ExampleBatch(List.of(ex), l, model.pairTypes());
        // potentials are eps * g; divide by eps to draw g itself
        INDArray pot = Potentials.pairwise(batch, model.pair(), model.eps());
        double[][] out = new double[2][h * w];
        java.util.Arrays.fill(out[0], Double.NaN);
        java.util.Arrays.fill(out[1], Double.NaN);
        int[] edges = ex.edges();
        for (int e = 0; e < ex.numEdges(); e++) {
            int i = edges[2 * e], j = edges[2 * e + 1], a = Math.min(i, j), b = Math.max(i, j);
            double same = 0, diff = 0;
            for (int yi = 0; yi < l; yi++) {
                for (int yj = 0; yj < l; yj++) {
                    double g = pot.getDouble(e, yi * l + yj) / model.eps();
                    if (yi == yj) same += g; else diff += g;
                }
            }
            double s = l == 2 ? same - diff : same / l - diff / (l * (l - 1));
            if (b == a + 1 && a / w == b / w) out[0][a] = s;
            else if (b == a + w) out[1][a] = s;
        }
        return out;
    }

    /** Writes the figure for {@code ex} (an image with the horse features or any other) to {@code png}. */
    public static void write(Path png, String title, CrfModel model, Example ex) throws IOException {
        int[] shape = ex.shape().orElseThrow();
        int h = shape[0], w = shape[1];
        double[][] s = strengths(model, ex);
        double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
        for (double[] d : s) for (double v : d) if (!Double.isNaN(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
        if (!(hi > lo)) hi = lo + 1;
        int[] input = PredictionFigure.input(ex);
        int[][] panels = {input, grey(s[0], lo, hi), grey(s[1], lo, hi)};
        String[] names = {"input " + h + "x" + w, "horizontal edges", "vertical edges"};
        BufferedImage img = new BufferedImage(3 * CELL + 4 * PAD, CELL + 2 * HEADER + 2 * PAD, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), img.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.drawString(title + String.format(Locale.ROOT, "   strength g(same) - g(different): black %.2f, white %.2f", lo, hi), PAD, 16);
        for (int p = 0; p < 3; p++) {
            int x = PAD + p * (CELL + PAD), y = HEADER + PAD;
            g.setColor(Color.BLACK);
            g.drawString(names[p], x, y + CELL + 18);
            BufferedImage src = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
            src.setRGB(0, 0, w, h, panels[p], 0, w);
            double scale = Math.min((double) CELL / w, (double) CELL / h);
            int dw = Math.max(1, (int) Math.round(w * scale)), dh = Math.max(1, (int) Math.round(h * scale));
            g.drawImage(src, x + (CELL - dw) / 2, y + (CELL - dh) / 2, dw, dh, null);
        }
        g.dispose();
        ChartGrid.savePng(img, png);
    }

    /** Grey levels from lo (black) to hi (white); pixels without an edge (NaN) are drawn mid blue. */
    private static int[] grey(double[] v, double lo, double hi) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            if (Double.isNaN(v[i])) {
                out[i] = 0x4060a0;
                continue;
            }
            int c = (int) Math.round(255 * Math.max(0, Math.min(1, (v[i] - lo) / (hi - lo))));
            out[i] = c << 16 | c << 8 | c;
        }
        return out;
    }

    /**
     * {@code java -cp structlr.jar org.structlr.viz.PairStrengthFigure MODEL EXAMPLE.npz OUT.png}: the
     * figure for a saved model and one image example (for models trained before {@code experiment}
     * drew it).
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: PairStrengthFigure MODEL_DIR EXAMPLE.npz OUT.png");
            System.exit(2);
        }
        CrfModel model = CrfModel.load(Path.of(args[0]));
        Example ex = org.structlr.data.ExampleIO.read(Path.of(args[1]));
        write(Path.of(args[2]), Path.of(args[1]).getFileName().toString(), model, ex);
    }
}
