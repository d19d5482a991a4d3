package org.structlr.viz;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import org.structlr.data.AtomicFiles;
import org.structlr.data.ClassTable;
import org.structlr.metrics.ConfusionMatrix;

/**
 * The confusion matrix as a PNG heat map: rows are true classes, columns predicted ones, each cell
 * the percentage of its row (so the diagonal is every class's recall, whatever its size), classes
 * named by the class table; the title gives pixel accuracy and mean IoU.
 */
public final class ConfusionFigure {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private ConfusionFigure() {}

    /**
     * One figure per split beside a JSON report {@code FILE.json}: {@code FILE-confusion-SPLIT.png}.
     *
     * @return the files written
     */
    public static List<Path> writeBeside(Path json, String title, java.util.Map<String, ConfusionMatrix> bySplit, ClassTable classes)
            throws IOException {
        List<Path> out = new ArrayList<>();
        for (java.util.Map.Entry<String, ConfusionMatrix> e : bySplit.entrySet()) {
            Path png = besideJson(json, e.getKey());
            write(png, title + " " + e.getKey(), e.getValue(), classes);
            out.add(png);
        }
        return out;
    }

    /** {@code FILE-confusion-SPLIT.png} beside {@code FILE.json}. */
    public static Path besideJson(Path json, String split) {
        String n = json.getFileName().toString();
        String stem = n.toLowerCase(Locale.ROOT).endsWith(".json") ? n.substring(0, n.length() - 5) : n;
        return json.resolveSibling(stem + "-confusion-" + split + ".png");
    }

    public static void write(Path png, String title, ConfusionMatrix m, ClassTable classes) throws IOException {
        int n = m.numLabels();
        int side = Math.max(420, Math.min(1600, 140 + 48 * n));
        HeatMapChart chart = new HeatMapChartBuilder().width(side + 120).height(side).title(String.format(Locale.ROOT,
                "%s: pixel accuracy %.4f, mean IoU %.4f", title, m.pixelAccuracy(), m.meanIou()))
                .xAxisTitle("predicted class").yAxisTitle("true class").build();
        chart.getStyler().setShowValue(n <= 30).setHeatMapDecimalValueFormatter(v -> String.format(Locale.ROOT, "%.1f", v))
                .setMin(0).setMax(100).setRangeColors(new Color[] {Color.WHITE, new Color(0x3060A0)}).setPiecewise(false);
        chart.getStyler().setLegendVisible(true);
        List<String> names = new ArrayList<>();
        for (int c = 0; c < n; c++) names.add(classes.name(c));
        List<String> rows = new ArrayList<>();
        // XChart draws the first y category at the bottom: list the true classes bottom-up so class 0 is the top row
        for (int c = n - 1; c >= 0; c--) rows.add(classes.name(c));
        List<Number[]> cells = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            long row = m.truthCount(t);
            for (int p = 0; p < n; p++) {
                double pct = row == 0 ? 0 : 100.0 * m.count(t, p) / row;
                cells.add(new Number[] {p, n - 1 - t, pct});
            }
        }
        chart.addSeries("% of the true class", names, rows, cells);
        byte[] bytes = BitmapEncoder.getBitmapBytes(chart, BitmapFormat.PNG);
        AtomicFiles.write(png, out -> out.write(bytes));
    }
}
