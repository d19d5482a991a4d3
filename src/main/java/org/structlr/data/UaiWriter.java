package org.structlr.data;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.structlr.graph.FactorGraph;

/**
 * Writes a {@link UaiReader.Model} as a UAI MARKOV network: every variable with its file
 * cardinality, then one factor per variable (its unary table), per edge (scope {@code i j}) and per
 * region (its variables in table order), each table {@code exp(theta)} row-major with the last scope
 * variable fastest. {@link UaiReader#read} gives the model back: the same graph and potentials
 * (to the last bit or so: {@code log(exp(theta))}), so a BAYES network is written as its CPT factors.
 *
 * <p>A factor whose largest potential would overflow {@code exp} (above 700) or underflow it (all
 * below -700) is written shifted by its largest potential: only a constant of the energy changes
 * (not the marginals, nor which labelling is the MAP). Labels a single-label variable was padded
 * with are not written.
 */
public final class UaiWriter {
    private UaiWriter() {}

    /** Writes {@code model} to {@code file} atomically (a failed write leaves no file). */
    public static void write(UaiReader.Model model, Path file) throws IOException {
        AtomicFiles.write(file, os -> {
            Writer w = new OutputStreamWriter(os, StandardCharsets.US_ASCII);
            write(model, w);
            w.flush();
        });
    }

    /** Writes {@code model} as text to {@code w} (not flushed). */
    public static void write(UaiReader.Model model, Writer w) throws IOException {
        FactorGraph g = model.graph();
        int n = g.numVariables();
        int[] card = model.cardinalities();
        w.write("MARKOV\n" + n + "\n");
        for (int i = 0; i < n; i++) w.write((i == 0 ? "" : " ") + card[i]);
        w.write("\n" + (n + g.numEdges() + g.numRegions()) + "\n");
        for (int i = 0; i < n; i++) w.write("1 " + i + "\n");
        for (int e = 0; e < g.numEdges(); e++) w.write("2 " + g.edgeFrom(e) + " " + g.edgeTo(e) + "\n");
        for (int r = 0; r < g.numRegions(); r++) {
            w.write(Integer.toString(g.regionSize(r)));
            for (int v : g.regionScope(r)) w.write(" " + v);
            w.write("\n");
        }
        for (int i = 0; i < n; i++) {
            double[] t = new double[card[i]];
            for (int y = 0; y < card[i]; y++) t[y] = model.unary(i, y);
            table(w, t);
        }
        for (int e = 0; e < g.numEdges(); e++) {
            int li = card[g.edgeFrom(e)], lj = card[g.edgeTo(e)];
            double[] t = new double[li * lj];
            for (int a = 0; a < li; a++) for (int b = 0; b < lj; b++) t[a * lj + b] = model.pairwise(e, a, b);
            table(w, t);
        }
        for (int r = 0; r < g.numRegions(); r++) {
            // The file's table covers the file's labels only: skip entries with a padded label.
            int k = g.regionSize(r);
            long entries = 1;
            for (int p = 0; p < k; p++) entries *= card[g.regionVariable(r, p)];
            double[] t = new double[(int) entries];
            int[] y = new int[k];
            for (int x = 0; x < t.length; x++) {
                int at = 0;
                for (int p = 0; p < k; p++) at += y[p] * g.regionStride(r, p);
                t[x] = model.region(r, at);
                for (int p = k - 1; p >= 0 && ++y[p] == card[g.regionVariable(r, p)]; p--) y[p] = 0;
            }
            table(w, t);
        }
    }

    /** One table: its entry count, then exp(theta) of each entry (shifted if exp would overflow or underflow). */
    private static void table(Writer w, double[] theta) throws IOException {
        double max = Double.NEGATIVE_INFINITY;
        for (double x : theta) max = Math.max(max, x);
        double shift = max > 700 || max < -700 ? max : 0;
        StringBuilder s = new StringBuilder().append('\n').append(theta.length).append('\n');
        for (int k = 0; k < theta.length; k++) {
            s.append(k == 0 ? "" : " ").append(theta[k] == Double.NEGATIVE_INFINITY ? "0" : Double.toString(Math.exp(theta[k] - shift)));
        }
        w.write(s.append('\n').toString());
    }
}
