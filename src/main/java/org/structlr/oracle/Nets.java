package org.structlr.oracle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.factory.Nd4j;

/** Helpers shared by the DL4J-backed score functions and oracles. */
final class Nets {

    static final String MODEL_FILE = "model.zip";

    private Nets() {
    }

    /** g(X) by a network whose output layer is IDENTITY, in the features' data type. */
    static INDArray output(MultiLayerNetwork net, INDArray features) {
        DataType netType = net.params().dataType();
        INDArray in = features.dataType() == netType ? features : features.castTo(netType);
        INDArray out;
        synchronized (net) {                       // DL4J networks are not safe for concurrent use
            out = net.output(in, false);
        }
        return out.dataType() == features.dataType() ? out : out.castTo(features.dataType());
    }

    /** Gradient of the mean loss with respect to the scores S [N, C]: (softmax(S + B) - Y) / N. */
    static INDArray scoreGradient(INDArray scores, BiasedLogisticProblem p) {
        INDArray z = scores.add(p.bias().castTo(scores.dataType()));
        INDArray pr = Nd4j.exec(new SoftMax(z, z.ulike()))[0];
        return pr.subi(p.oneHot().castTo(pr.dataType())).divi(p.numRows());
    }

    static void save(MultiLayerNetwork net, Path dir) throws IOException {
        Files.createDirectories(dir);
        synchronized (net) {
            ModelSerializer.writeModel(net, dir.resolve(MODEL_FILE).toFile(), true);
        }
    }

    static MultiLayerNetwork load(Path dir) throws IOException {
        Path file = dir.resolve(MODEL_FILE);
        if (!Files.isRegularFile(file)) throw new IOException(file + ": missing network file");
        return ModelSerializer.restoreMultiLayerNetwork(file.toFile(), true);
    }

    static MultiLayerNetwork copy(MultiLayerNetwork net) {
        synchronized (net) {
            return net.clone();
        }
    }
}
