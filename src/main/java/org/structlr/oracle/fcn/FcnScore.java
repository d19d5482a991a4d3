package org.structlr.oracle.fcn;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.graph.GridBatch;

/** The unary FCN: output channel c at pixel (r, c') is g(image, y = c) of that pixel (one group). */
public final class FcnScore extends FullyConvolutionalScore {

    static final String KIND = "fcn";

    FcnScore(ComputationGraph net, int fits) {
        super(net, 1, fits);
    }

    @Override
    public INDArray imageScores(INDArray pixelFeatures, GridBatch layout) {
        return groupRows(pixelFeatures, layout);
    }

    @Override
    public boolean perEdge() {
        return false;
    }

    @Override
    public String kind() {
        return KIND;
    }

    static FcnScore load(Path dir, JsonNode meta) throws IOException {
        try {
            return checkShape(new FcnScore(loadNet(dir, meta, 1), meta.path("fits").asInt(0)), dir, meta);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException(dir + ": " + e.getMessage(), e);
        }
    }
}
