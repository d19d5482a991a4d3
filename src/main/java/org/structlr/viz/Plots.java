package org.structlr.viz;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.structlr.data.AtomicFiles;
import org.structlr.learn.IterationRecord;

/** PNG figures (XChart), written atomically. */
public final class Plots {
    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Plots() {}

    /** Training and test error against iteration, one line pair per named run. */
    public static void errorCurves(Path png, String title, Map<String, List<IterationRecord>> runs) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle("iteration").yAxisTitle("error (fraction of pixels)").build();
        chart.getStyler().setLegendVisible(true);
        for (Map.Entry<String, List<IterationRecord>> run : runs.entrySet()) {
            List<IterationRecord> c = run.getValue();
            double[] x = c.stream().mapToDouble(IterationRecord::iteration).toArray();
            chart.addSeries(run.getKey() + " train", x, c.stream().mapToDouble(IterationRecord::trainError).toArray()).setMarker(SeriesMarkers.NONE);
            chart.addSeries(run.getKey() + " test", x, c.stream().mapToDouble(IterationRecord::testError).toArray()).setMarker(SeriesMarkers.NONE);
        }
        save(chart, png);
    }

    /** The learning objective R per variable against iteration. */
    public static void objectiveCurves(Path png, String title, Map<String, List<IterationRecord>> runs) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle("iteration").yAxisTitle("objective R per variable").build();
        for (Map.Entry<String, List<IterationRecord>> run : runs.entrySet()) {
            List<IterationRecord> c = run.getValue();
            chart.addSeries(run.getKey(), c.stream().mapToDouble(IterationRecord::iteration).toArray(),
                    c.stream().mapToDouble(IterationRecord::objective).toArray()).setMarker(SeriesMarkers.NONE);
        }
        save(chart, png);
    }

    /**
     * One value of the curve against the seconds of learning (fits and passing, no evaluation), one
     * line per named run: runs of different schedules compared on one time axis. Iterations where
     * the value is NaN (not evaluated) are left out.
     */
    public static void againstTime(Path png, String title, String yTitle, Map<String, List<IterationRecord>> runs,
                                   java.util.function.ToDoubleFunction<IterationRecord> value) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(560).title(title).xAxisTitle("seconds of learning (fits + message passing)")
                .yAxisTitle(yTitle).build();
        chart.getStyler().setLegendVisible(true);
        for (Map.Entry<String, List<IterationRecord>> run : runs.entrySet()) {
            List<IterationRecord> c = run.getValue().stream().filter(r -> Double.isFinite(value.applyAsDouble(r))).toList();
            if (c.isEmpty()) continue;
            chart.addSeries(run.getKey(), c.stream().mapToDouble(IterationRecord::learningSeconds).toArray(),
                    c.stream().mapToDouble(value).toArray()).setMarker(SeriesMarkers.NONE);
        }
        save(chart, png);
    }

    public static void save(XYChart chart, Path png) throws IOException {
        byte[] bytes = BitmapEncoder.getBitmapBytes(chart, BitmapFormat.PNG);
        AtomicFiles.write(png, out -> out.write(bytes));
    }
}
