package org.structlr.viz;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.model.CrfModel;
import org.structlr.oracle.ImageScoreFunction;
import org.structlr.oracle.ScoreFunction;

/**
 * The learned functions of a model with one input feature (the paper's Fig. 1; the denoising
 * model, whose unary and edge features are the rows [1, phi], docs/design.md §1): the unary energy
 * f(phi, y) = eps * g(phi, y) for every label y, and for every pairwise type the energy of every
 * joint label (y_i, y_j), against phi in [0, 1]. Joint labels with y_i == y_j are drawn solid,
 * those with y_i != y_j dashed.
 */
public final class FunctionFigure {
    public static final int WIDTH = 1200, HEIGHT = 460;

    private FunctionFigure() {}

    /**
     * The plotted values: {@code unary[y][k] = f_unary([1, phi[k]], y)} and, per pairwise type t,
     * {@code pair.get(t)[yi * L + yj][k] = f_t([1, phi[k]], (yi, yj))}, all including the factor eps.
     */
    public record Curves(double[] phi, int numLabels, List<String> pairTypes, double[][] unary, List<double[][]> pair) {}

    /** Whether a model's functions take the one-feature rows [1, phi] (or ignore their features). */
    public static boolean applicable(CrfModel model) {
        if (!(model.unaryFeatures() == 2 || model.unaryFeatures() == -1)) return false;
        // fcn: a whole-image function has no curve over one pixel's feature
        if (model.unary() instanceof ImageScoreFunction) return false;
        for (ScoreFunction f : model.pair()) if (f instanceof ImageScoreFunction) return false;
        for (ScoreFunction f : model.pair()) if (!(f.numFeatures() == 2 || f.numFeatures() == -1)) return false;
        return true;
    }

    /** {@code n} evenly spaced values from 0 to 1 (n >= 2). */
    public static double[] grid(int n) {
        if (n < 2) throw new IllegalArgumentException("need at least 2 points, got " + n);
        double[] x = new double[n];
        for (int k = 0; k < n; k++) x[k] = (double) k / (n - 1);
        return x;
    }

    /** eps times every function's scores on the feature rows [1, phi]. */
    public static Curves evaluate(CrfModel model, double[] phi) {
        if (!applicable(model)) throw new IllegalArgumentException("the model's functions do not take the one-feature rows [1, phi]");
        INDArray rows = Nd4j.create(DataType.FLOAT, phi.length, 2);
        for (int k = 0; k < phi.length; k++) {
            rows.putScalar(k, 0, 1.0);
            rows.putScalar(k, 1, phi[k]);
        }
        double[][] unary = columns(model.unary().scores(rows), model.eps());
        List<double[][]> pair = new ArrayList<>();
        for (ScoreFunction f : model.pair()) pair.add(columns(f.scores(rows), model.eps()));
        return new Curves(phi.clone(), model.numLabels(), model.pairTypes(), unary, pair);
    }

    /** [N, C] scores to C arrays of N values, times eps. */
    private static double[][] columns(INDArray scores, double eps) {
        INDArray s = scores.castTo(DataType.DOUBLE);
        int n = (int) s.size(0), c = (int) s.size(1);
        double[][] out = new double[c][n];
        for (int j = 0; j < c; j++) for (int k = 0; k < n; k++) out[j][k] = eps * s.getDouble(k, j);
        return out;
    }

    public static void write(Path png, String title, Curves c) throws IOException {
        List<XYChart> charts = new ArrayList<>();
        XYChart u = chart(title + ": unary f(phi, y)", "phi (unary feature)");
        for (int y = 0; y < c.unary().length; y++) u.addSeries("y = " + y, c.phi(), c.unary()[y]).setMarker(SeriesMarkers.NONE);
        charts.add(u);
        XYChart p = chart(title + ": pairwise f(phi, y_i, y_j)", "phi (edge feature)");
        int l = c.numLabels();
        for (int t = 0; t < c.pair().size(); t++) {
            String type = c.pair().size() == 1 ? "" : c.pairTypes().get(t) + " ";
            for (int yi = 0; yi < l; yi++) {
                for (int yj = 0; yj < l; yj++) {
                    String name = type + (yi == yj ? "same " : "diff ") + "(" + yi + "," + yj + ")";
                    XYSeries s = p.addSeries(name, c.phi(), c.pair().get(t)[yi * l + yj]);
                    s.setMarker(SeriesMarkers.NONE);
                    if (yi != yj) s.setLineStyle(SeriesLines.DASH_DASH);
                }
            }
        }
        charts.add(p);
        ChartGrid.savePng(ChartGrid.render(charts, 2), png);
    }

    private static XYChart chart(String title, String xTitle) {
        XYChart ch = new XYChartBuilder().width(WIDTH / 2).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle("energy (eps * g)").build();
        ch.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        ch.getStyler().setChartTitleFont(ch.getStyler().getChartTitleFont().deriveFont(13f));
        return ch;
    }
}
