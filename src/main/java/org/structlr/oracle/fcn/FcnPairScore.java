package org.structlr.oracle.fcn;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.GridBatch;

/**
 * The pairwise FCN: 2 groups of L*L output channels per pixel (r, c): channels {@code 0..L*L-1} score
 * the horizontal edge from (r, c) to (r, c+1), channels {@code L*L..2L*L-1} the vertical edge from
 * (r, c) to (r+1, c), joint label {@code y_i * L + y_j} with i = (r, c). The last column's right group
 * and the last row's down group belong to no edge and are ignored.
 */
public final class FcnPairScore extends FullyConvolutionalScore {

    static final String KIND = "fcn-pair";

    FcnPairScore(ComputationGraph net, int fits) {
        super(net, 2, fits);
    }

    @Override
    public INDArray imageScores(INDArray pixelFeatures, GridBatch layout) {
        INDArray rows = groupRows(pixelFeatures, layout);
        if (layout.numEdges() == 0) return Nd4j.create(rows.dataType(), 0, numClasses());   // single-pixel images
        return ImageTensors.edgeSlotRows(layout).from(rows);
    }

    @Override
    public boolean perEdge() {
        return true;
    }

    @Override
    public String kind() {
        return KIND;
    }

    static FcnPairScore load(Path dir, JsonNode meta) throws IOException {
        try {
            return checkShape(new FcnPairScore(loadNet(dir, meta, 2), meta.path("fits").asInt(0)), dir, meta);
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException(dir + ": " + e.getMessage(), e);
        }
    }
}
