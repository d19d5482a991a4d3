package org.structlr.viz;

import java.io.IOException;
import java.nio.file.Path;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** A process's resident memory against the requests it has answered (serve's soak run). */
public final class MemoryFigure {
    private MemoryFigure() {}

    /** {@code requests[k]} answered when resident memory was {@code rssMiB[k]}. */
    public static void write(Path png, String title, double[] requests, double[] rssMiB) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(480).title(title).xAxisTitle("requests answered").yAxisTitle("resident memory (MiB)").build();
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setYAxisMin(0.0);
        chart.addSeries("resident", requests, rssMiB).setMarker(SeriesMarkers.NONE);
        Plots.save(chart, png);
    }
}
