package org.structlr.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.ConvolutionMode;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.CnnLossLayer;
import org.deeplearning4j.nn.conf.layers.ConvolutionLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.structlr.oracle.fcn.FullyConvolutionalScore;

/**
 * Your own network from Java ({@link CrfTrainer.Builder#unaryNet}): a pretrained zip trains as the
 * unary function; its frozen layers come out of training unchanged, the trained layer changed, and
 * the model records the file's SHA-256 and the freeze.
 */
class OwnNetworkApiTest {
    @TempDir
    Path tmp;

    @Test
    void aZipNetworkTrainsWithItsFrozenLayersFixed() throws Exception {
        CrfData data = CrfData.denoising(2, 1, 12, 5);
        int d = data.train().get(0).unaryWidth();
        ComputationGraphConfiguration.GraphBuilder b = new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT)
                .convolutionMode(ConvolutionMode.Same).updater(new Sgd(0.1)).graphBuilder().addInputs("in");
        b.addLayer("c1", new ConvolutionLayer.Builder(3, 3).nIn(d).nOut(4).activation(Activation.TANH).build(), "in");
        b.addLayer("c2", new ConvolutionLayer.Builder(3, 3).nIn(4).nOut(4).activation(Activation.RELU).build(), "c1");
        b.addLayer("head", new ConvolutionLayer.Builder(1, 1).nIn(4).nOut(2).activation(Activation.IDENTITY).build(), "c2");
        b.addLayer("out", new CnnLossLayer.Builder(new LossMCXENT()).activation(Activation.SOFTMAX).build(), "head");
        ComputationGraph pretrained = new ComputationGraph(b.setOutputs("out").build());
        pretrained.init();
        Path zip = tmp.resolve("pretrained.zip");
        ModelSerializer.writeModel(pretrained, zip.toFile(), false);

        Crf crf = CrfTrainer.builder().unaryNet(zip, 2).unaryOption("epochs", "2").pairwise("linear").iterations(2).build().train(data);
        ComputationGraph trained = ((FullyConvolutionalScore) crf.internalModel().unary()).networkCopy();
        for (String layer : new String[]{"c1", "c2"}) {
            assertArrayEquals(pretrained.getLayer(layer).params().dup().reshape(-1).toFloatVector(),
                    trained.getLayer(layer).params().dup().reshape(-1).toFloatVector(), "frozen layer " + layer);
        }
        assertFalse(java.util.Arrays.equals(pretrained.getLayer("head").params().dup().reshape(-1).toFloatVector(),
                trained.getLayer("head").params().dup().reshape(-1).toFloatVector()), "the scores layer is trained");
        @SuppressWarnings("unchecked")
        Map<String, Object> options = (Map<String, Object>) crf.settings().get("unaryOptions");
        assertTrue(String.valueOf(options.get("net")).matches("sha256:[0-9a-f]{64}"), options.toString());
        assertEquals(2, ((Number) options.get("freeze")).intValue());
    }
}
