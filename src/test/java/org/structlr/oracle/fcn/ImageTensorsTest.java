package org.structlr.oracle.fcn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.GridBatch;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;
import org.structlr.oracle.RowTargets;

/**
 * The fcn class's training labels ({@link ImageTensors#labels}, built with ND4J ops: the bias
 * scattered into place without leaving ND4J) equal, bit for bit, the same tensors written value by
 * value in Java from the layout's definition (a pixel's channels; an edge's group at its left or
 * upper pixel), for unary rows (every pixel in order, shuffled, a shuffled subset) and pairwise
 * rows (every edge, a shuffled subset), hard, soft and weighted targets, float and double.
 */
class ImageTensorsTest {

    private static final GridBatch RAGGED = FcnOracleTest.RAGGED;

    @Test
    void labelsBuiltWithNd4jOpsAreTheHostBuiltOnesExactly() {
        for (DataType t : new DataType[]{DataType.FLOAT, DataType.DOUBLE}) {
            INDArray px = FcnOracleTest.pixels(RAGGED, 3, 41, t);
            int[] shuffled = FcnOracleTest.horizontalEdges(RAGGED);
            shuffle(shuffled, new Random(43));
            // pixels in order (already in place: no scatter), every pixel shuffled, a shuffled subset (void pixels left out)
            int[] pixels = new int[RAGGED.numVariables()];
            for (int v = 0; v < pixels.length; v++) pixels[v] = v;
            shuffle(pixels, new Random(45));
            ImageRows[] cases = {ImageRows.pixels(px, RAGGED), new ImageRows(px, RAGGED, pixels, false),
                    new ImageRows(px, RAGGED, java.util.Arrays.copyOf(pixels, pixels.length - 7), false),
                    ImageRows.edges(px, RAGGED, FcnOracleTest.allEdges(RAGGED)), ImageRows.edges(px, RAGGED, shuffled)};
            for (ImageRows im : cases) {
                int classes = im.perEdge() ? 4 : 2, groups = im.perEdge() ? 2 : 1;
                BiasedLogisticProblem hard = FcnOracleTest.problem(px, im, classes, 47);
                int n = hard.numRows();
                Random r = new Random(53);
                double[] w = new double[n], soft = new double[n * classes];
                for (int i = 0; i < n; i++) {
                    w[i] = r.nextDouble() * 3;
                    double sum = 0;
                    for (int k = 0; k < classes; k++) sum += soft[i * classes + k] = r.nextDouble();
                    for (int k = 0; k < classes; k++) soft[i * classes + k] /= sum;
                }
                for (BiasedLogisticProblem p : new BiasedLogisticProblem[]{hard, hard.withTargets(hard.targets().withWeights(w)),
                        hard.withTargets(RowTargets.soft(soft, classes).withWeights(w))}) {
                    INDArray[][] got = ImageTensors.labels(p, im, groups, t);
                    INDArray[][] want = hostLabels(p, im, groups, t);
                    assertEquals(RAGGED.count(), got.length);
                    for (int k = 0; k < got.length; k++) {
                        for (int part = 0; part < 2; part++) {
                            String what = t + ", " + p.targets() + ", " + im.rows().length + (im.perEdge() ? " edges" : " pixels") + ", image " + k
                                    + (part == 0 ? " targets" : " bias");
                            assertArrayEquals(want[k][part].shape(), got[k][part].shape(), what);
                            assertEquals(t, got[k][part].dataType(), what);
                            assertArrayEquals(want[k][part].reshape(-1).toDoubleVector(), got[k][part].dup('c').reshape(-1).toDoubleVector(), 0.0, what);
                        }
                    }
                }
            }
        }
    }

    /**
     * Written value by value: row i's targets T_i (in type t) and bias b_i at its pixel (unary), or at
     * the left pixel of a horizontal edge in group 0 / the upper pixel of a vertical edge in group 1
     * (layout edge order: per image the horizontal edges row by row, then the vertical ones); channel
     * group * C + class, everything else zero.
     */
    private static INDArray[][] hostLabels(BiasedLogisticProblem p, ImageRows im, int groups, DataType t) {
        GridBatch g = im.layout();
        int c = p.numClasses();
        double[] bias = p.bias().castTo(DataType.DOUBLE).dup('c').reshape(-1).toDoubleVector();
        double[][][] v = new double[g.count()][2][];
        for (int k = 0; k < g.count(); k++) {
            v[k][0] = new double[groups * c * g.height(k) * g.width(k)];
            v[k][1] = new double[v[k][0].length];
        }
        for (int i = 0; i < p.numRows(); i++) {
            int row = im.rows()[i], k = 0, group = 0, y, x;
            if (!im.perEdge()) {
                while (k + 1 < g.count() && g.variableOffset(k + 1) <= row) k++;
                int local = row - g.variableOffset(k);
                y = local / g.width(k);
                x = local % g.width(k);
            } else {
                while (k + 1 < g.count() && g.edgeOffset(k + 1) <= row) k++;
                int local = row - g.edgeOffset(k), h = g.height(k), w = g.width(k);
                if (local < h * (w - 1)) {
                    y = local / (w - 1);
                    x = local % (w - 1);
                } else {
                    group = 1;
                    y = (local - h * (w - 1)) / w;
                    x = (local - h * (w - 1)) % w;
                }
            }
            for (int cls = 0; cls < c; cls++) {
                int at = ((group * c + cls) * g.height(k) + y) * g.width(k) + x;
                v[k][0][at] = cast(p.targets().target(i, cls), t);
                v[k][1][at] = cast(bias[i * c + cls], t);
            }
        }
        INDArray[][] out = new INDArray[g.count()][2];
        for (int k = 0; k < g.count(); k++) {
            for (int part = 0; part < 2; part++) out[k][part] = Nd4j.create(v[k][part], new long[]{1, (long) groups * c, g.height(k), g.width(k)}, 'c');
        }
        return out;
    }

    private static double cast(double value, DataType t) {
        return t == DataType.FLOAT ? (float) value : value;
    }

    private static void shuffle(int[] a, Random r) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = r.nextInt(i + 1), tmp = a[i];
            a[i] = a[j];
            a[j] = tmp;
        }
    }
}
