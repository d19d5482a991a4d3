package org.structlr.oracle.nn;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.deeplearning4j.nn.conf.InputPreProcessor;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.conf.layers.SubsamplingLayer;
import org.deeplearning4j.nn.conf.preprocessor.FeedForwardToCnnPreProcessor;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;

/**
 * g(phi, .) for a k x k RGB patch phi (a flat row of width 3 k^2, channel-major) by a small
 * convolutional DL4J MultiLayerNetwork ({@link CnnOracle}): a {@link FeedForwardToCnnPreProcessor}
 * reshapes the row to [3, k, k], then convolutions, pooling, a dense layer and an IDENTITY output
 * layer with {@link BiasedSoftmaxLoss}. Saved with ModelSerializer including the updater state, so a
 * loaded function continues exactly; {@code fits} counts the oracle calls that produced it.
 */
final class CnnScore extends NetworkScore {

    static final String KIND = "cnn";
    private final int patchSide;

    CnnScore(MultiLayerNetwork net, int fits) {
        super(net, 3 * patchSide(net) * patchSide(net), fits);
        this.patchSide = patchSide(net);
    }

    /** k of the flat k x k x 3 patch the network reads (its first preprocessor). */
    private static int patchSide(MultiLayerNetwork net) {
        InputPreProcessor pre = net.getLayerWiseConfigurations().getInputPreProcess(0);
        if (!(pre instanceof FeedForwardToCnnPreProcessor ff) || ff.getNumChannels() != 3
                || ff.getInputHeight() != ff.getInputWidth()) {
            throw new IllegalArgumentException("cnn score: the network does not read a flat k x k x 3 patch (first preprocessor "
                    + pre + ")");
        }
        return (int) ff.getInputHeight();
    }

    /** The patch side k (the features are 3 k^2 wide). */
    public int patchSide() {
        return patchSide;
    }

    @Override
    public String kind() {
        return KIND;
    }

    /** The layers as text, e.g. "conv3x3x8 conv3x3x16 maxpool2x2 dense32". */
    String layers() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < net.getnLayers(); i++) {
            Layer l = net.getLayerWiseConfigurations().getConf(i).getLayer();
            if (s.length() > 0) s.append(' ');
            if (l instanceof ConvolutionLayer c) {
                s.append("conv").append(c.getKernelSize()[0]).append('x').append(c.getKernelSize()[1]).append('x').append(c.getNOut());
            } else if (l instanceof SubsamplingLayer p) {
                s.append(p.getPoolingType().toString().toLowerCase()).append("pool")
                        .append(p.getKernelSize()[0]).append('x').append(p.getKernelSize()[1]);
            } else if (l instanceof org.deeplearning4j.nn.conf.layers.BaseOutputLayer o) {
                s.append("out").append(o.getNOut());
            } else if (l instanceof org.deeplearning4j.nn.conf.layers.FeedForwardLayer f) {
                s.append("dense").append(f.getNOut());
            } else {
                s.append(l.getClass().getSimpleName());
            }
        }
        return s.toString();
    }

    @Override
    public String describe() {
        return "cnn: " + patchSide + "x" + patchSide + "x3 patch -> " + layers() + ", " + net.numParams() + " parameters, "
                + fits() + " fits, " + net.params().dataType();
    }

    @Override
    void addMeta(ObjectNode meta) {
        meta.put("patchSide", patchSide);
    }

    static CnnScore load(Path dir, JsonNode meta) throws IOException {
        CnnScore s;
        try {
            s = new CnnScore(Nets.load(dir), meta.path("fits").asInt(0));
        } catch (IllegalArgumentException e) {
            throw new IOException(dir + ": " + e.getMessage(), e);
        }
        return checkShape(s, dir, meta);
    }

}
