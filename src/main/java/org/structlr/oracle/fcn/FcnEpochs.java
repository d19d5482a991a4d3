package org.structlr.oracle.fcn;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.GridBatch;
import org.structlr.memory.NativeMemory;
import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.ImageRows;

/**
 * The training of an fcn fit: epochs over the problem's whole images in a reshuffled order, same-size
 * images in mini-batches, one {@code net.fit} per mini-batch. DL4J's step on a mini-batch of B
 * images is the mean of their gradients (the loss layer's gradient is per image, the updater
 * divides by B), so every batching descends the same objective, the sum over images and pixels.
 */
final class FcnEpochs {

    private FcnEpochs() {}

    /**
     * Every image of a problem as the network's tensors, padded to its size multiple: input
     * {@code x [1, D, H, W]}, targets {@code y} and bias {@code b [1, K*C, H, W]} ({@link ImageTensors#labels}).
     * Built once per fit: every try of the step policy ({@link DescentSteps}) trains on the same tensors.
     */
    record Images(INDArray[] x, INDArray[] y, INDArray[] b, GridBatch layout) {
        static Images of(BiasedLogisticProblem p, ImageRows im, int groups, DataType t, int[] multiple) {
            INDArray[][] l = ImageTensors.labels(p, im, groups, t);
            int count = im.layout().count();
            INDArray[] x = new INDArray[count], y = new INDArray[count], b = new INDArray[count];
            for (int k = 0; k < count; k++) {
                x[k] = ImageTensors.pad(ImageTensors.image(im.pixelFeatures(), im.layout(), k, t), multiple);
                y[k] = ImageTensors.pad(l[k][0], multiple);
                b[k] = ImageTensors.pad(l[k][1], multiple);
            }
            return new Images(x, y, b, im.layout());
        }

        /** The tensors for {@code net} (its data type and size multiple). */
        static Images of(BiasedLogisticProblem p, ImageRows im, int groups, ComputationGraph net) {
            return of(p, im, groups, net.params().dataType(), FcnGraph.sizeMultiple(net));
        }
    }

    /**
     * Only the epochs {@code fromEpoch <= e < toEpoch} (the shuffles of the earlier epochs are still
     * drawn from {@code shuffleSeed}, so epoch e sees the same order either way), in mini-batches of
     * up to {@code batch} images: a whole fit is epochs 0 .. epochsPerFit; the Spark learner runs
     * them one at a time with averaging between ({@link FcnDataParallel}).
     */
    static void train(ComputationGraph net, BiasedLogisticProblem p, ImageRows im, int groups, long shuffleSeed, int batch,
                      int fromEpoch, int toEpoch) {
        train(net, Images.of(p, im, groups, net), shuffleSeed, batch, fromEpoch, toEpoch);
    }

    /** {@link #train(ComputationGraph, BiasedLogisticProblem, ImageRows, int, long, int, int, int)} on tensors made by {@link Images#of}. */
    static void train(ComputationGraph net, Images data, long shuffleSeed, int batch, int fromEpoch, int toEpoch) {
        int count = data.layout().count();
        Random rng = new Random(shuffleSeed);
        int[] order = new int[count];
        for (int k = 0; k < count; k++) order[k] = k;
        for (int epoch = 0; epoch < toEpoch; epoch++) {
            for (int i = count - 1; i > 0; i--) {
                int j = rng.nextInt(i + 1), tmp = order[i];
                order[i] = order[j];
                order[j] = tmp;
            }
            if (epoch < fromEpoch) continue;
            for (int[] images : batches(data.layout(), order, batch)) {
                net.fit(new INDArray[]{stack(data.x(), images), stack(data.b(), images)}, new INDArray[]{stack(data.y(), images)});
                NativeMemory.release();   // at most every 30 s: whole images leave large native buffers behind
            }
        }
    }

    /**
     * Mini-batches of same-size images: images are taken in {@code order}; each joins the open batch
     * of its size, which is emitted when it holds {@code size} images; open batches are emitted at the
     * end in the order of their first image. With {@code size = 1}: one image per batch, in {@code order}.
     */
    static List<int[]> batches(GridBatch layout, int[] order, int size) {
        List<int[]> out = new ArrayList<>();
        Map<Long, List<Integer>> open = new LinkedHashMap<>();
        for (int k : order) {
            long shape = (long) layout.height(k) << 32 | layout.width(k);
            List<Integer> b = open.computeIfAbsent(shape, s -> new ArrayList<>());
            b.add(k);
            if (b.size() == size) {
                out.add(b.stream().mapToInt(Integer::intValue).toArray());
                open.remove(shape);
            }
        }
        for (List<Integer> b : open.values()) out.add(b.stream().mapToInt(Integer::intValue).toArray());
        return out;
    }

    /** The tensors {@code a[k]}, k in {@code batch}, stacked along dimension 0 (the mini-batch). */
    static INDArray stack(INDArray[] a, int[] batch) {
        INDArray[] parts = new INDArray[batch.length];
        for (int i = 0; i < batch.length; i++) parts[i] = a[batch[i]];
        return parts.length == 1 ? parts[0] : Nd4j.concat(0, parts);
    }
}
