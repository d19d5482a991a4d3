package org.structlr.viz;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.structlr.learn.IterationRecord;

/**
 * Learning curves (the paper's Fig. 2): per run one panel with training and test error (left axis)
 * and the objective R per variable (right axis) against the learning iteration; many runs as a grid
 * of panels in one PNG.
 */
public final class LearningCurveFigure {
    /** Panel size in pixels. */
    public static final int PANEL_WIDTH = 420, PANEL_HEIGHT = 300;

    private LearningCurveFigure() {}

    /** One panel: train and test error against iteration, the objective on a second axis. */
    public static XYChart panel(String title, List<IterationRecord> curve, int width, int height) {
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle("iteration").yAxisTitle("error").build();
        org.knowm.xchart.style.XYStyler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.InsideNE);
        st.setLegendFont(st.getLegendFont().deriveFont(10f));
        st.setChartTitleFont(st.getChartTitleFont().deriveFont(12f));
        st.setAxisTitleFont(st.getAxisTitleFont().deriveFont(10f));
        st.setAxisTickLabelsFont(st.getAxisTickLabelsFont().deriveFont(9f));
        chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        chart.setYAxisGroupTitle(1, "objective");
        double[] x, train, test, obj;
        if (curve.isEmpty()) { // XChart needs at least one point
            x = new double[] {0};
            train = test = obj = new double[] {Double.NaN};
        } else {
            x = curve.stream().mapToDouble(IterationRecord::iteration).toArray();
            train = curve.stream().mapToDouble(IterationRecord::trainError).toArray();
            test = curve.stream().mapToDouble(IterationRecord::testError).toArray();
            obj = curve.stream().mapToDouble(IterationRecord::objective).toArray();
        }
        chart.addSeries("train error", x, train).setMarker(SeriesMarkers.NONE);
        chart.addSeries("test error", x, test).setMarker(SeriesMarkers.NONE);
        XYSeries o = chart.addSeries("objective", x, obj);
        o.setMarker(SeriesMarkers.NONE);
        o.setYAxisGroup(1);
        return chart;
    }

    /** A panel titled with the run's name and its final test error. */
    public static XYChart panel(String name, List<IterationRecord> curve) {
        String title = name;
        if (!curve.isEmpty() && Double.isFinite(curve.get(curve.size() - 1).testError())) {
            title += String.format(Locale.ROOT, "  (test %.4f)", curve.get(curve.size() - 1).testError());
        }
        return panel(title, curve, PANEL_WIDTH, PANEL_HEIGHT);
    }

    /** Runs (in map order) as a grid of {@code columns} panels per row, {@link #PANEL_WIDTH} x {@link #PANEL_HEIGHT} each. */
    public static void grid(Path png, LinkedHashMap<String, List<IterationRecord>> runs, int columns) throws IOException {
        List<XYChart> charts = new ArrayList<>();
        for (Map.Entry<String, List<IterationRecord>> r : runs.entrySet()) charts.add(panel(r.getKey(), r.getValue()));
        ChartGrid.savePng(ChartGrid.render(charts, columns), png);
    }

    /** One run as a single larger panel. */
    public static void single(Path png, String title, List<IterationRecord> curve) throws IOException {
        Plots.save(panel(title, curve, 900, 560), png);
    }
}
