package org.structlr.oracle.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.util.ModelSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;

class NetworkFilesTest {
    /** Set when a crafted object is deserialised: the test that feeds one must leave it false. */
    static volatile boolean deserialised;

    /** A class whose deserialisation would be visible (what a gadget chain's first step looks like). */
    static final class Marker implements Serializable {
        private void readObject(java.io.ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            deserialised = true;
        }
    }

    private static MultiLayerNetwork network() {
        MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(3).dataType(DataType.FLOAT).updater(new Adam(0.01))
                .list()
                .layer(new DenseLayer.Builder().nIn(3).nOut(4).activation(Activation.TANH).build())
                .layer(new OutputLayer.Builder(new BiasedSoftmaxLoss()).nIn(4).nOut(2).activation(Activation.IDENTITY).build())
                .build();
        MultiLayerNetwork net = new MultiLayerNetwork(conf);
        net.init();
        // one step so that the updater state is not all zeros
        net.fit(Nd4j.rand(DataType.FLOAT, 5, 3), BiasedSoftmaxLoss.labels(Nd4j.eye(2).getRows(0, 1, 0, 1, 1).castTo(DataType.FLOAT), Nd4j.zeros(DataType.FLOAT, 5, 2)));
        return net;
    }

    @Test
    void readsWhatModelSerializerWritesWithTheSameParametersAndUpdaterState(@TempDir Path dir) throws IOException {
        MultiLayerNetwork net = network();
        Path file = dir.resolve("net.zip");
        NetworkFiles.write(net, file, true);
        MultiLayerNetwork ours = NetworkFiles.readMultiLayer(file, true);
        MultiLayerNetwork theirs = ModelSerializer.restoreMultiLayerNetwork(file.toFile(), true);
        assertArrayEquals(theirs.params().toFloatVector(), ours.params().toFloatVector());
        assertArrayEquals(theirs.getUpdater().getStateViewArray().toFloatVector(), ours.getUpdater().getStateViewArray().toFloatVector());
        INDArray x = Nd4j.rand(DataType.FLOAT, 4, 3);
        assertArrayEquals(theirs.output(x).data().asFloat(), ours.output(x).data().asFloat());
    }

    @Test
    void aSerialisedObjectInTheZipIsRefusedByNameAndNeverRead(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("net.zip");
        NetworkFiles.write(network(), file, true);
        ByteArrayOutputStream obj = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(obj)) {
            o.writeObject(new Marker());
        }
        Path crafted = withEntry(file, dir.resolve("crafted.zip"), "preprocessor.bin", obj.toByteArray());
        deserialised = false;
        // ModelSerializer itself would run Marker.readObject here; NetworkFiles must not
        IOException e = assertThrows(IOException.class, () -> NetworkFiles.readMultiLayer(crafted, true));
        assertTrue(e.getMessage().contains("unexpected entry 'preprocessor.bin'"), e.getMessage());
        assertTrue(e.getMessage().startsWith(crafted.toString()), e.getMessage());
        assertFalse(deserialised);
        // the control: DL4J's reader does deserialise it, so the crafted file is a real threat
        assertThrows(ClassCastException.class, () -> ModelSerializer.restoreMultiLayerNetwork(crafted.toFile(), true));
        assertTrue(deserialised, "DL4J's own reader ran the crafted object's readObject");
    }

    @Test
    void aConfigurationNamingAClassOutsideDl4jNd4jAndStructlrIsRefused(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("net.zip");
        NetworkFiles.write(network(), file, false);
        String json = new String(entry(file, "configuration.json"), StandardCharsets.UTF_8)
                .replace("\"org.structlr.oracle.nn.BiasedSoftmaxLoss\"", "\"javax.script.ScriptEngineManager\"");
        Path crafted = withEntry(file, dir.resolve("crafted.zip"), "configuration.json", json.getBytes(StandardCharsets.UTF_8));
        IOException e = assertThrows(IOException.class, () -> NetworkFiles.readMultiLayer(crafted, false));
        assertTrue(e.getMessage().contains("names class 'javax.script.ScriptEngineManager'"), e.getMessage());
    }

    @Test
    void theLossClassUnderItsOldPackageNameStillLoads(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("net.zip");
        MultiLayerNetwork net = network();
        NetworkFiles.write(net, file, false);
        String json = new String(entry(file, "configuration.json"), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"org.structlr.oracle.nn.BiasedSoftmaxLoss\""));
        Path old = withEntry(file, dir.resolve("old.zip"), "configuration.json",
                json.replace("org.structlr.oracle.nn.BiasedSoftmaxLoss", "org.structlr.oracle.BiasedSoftmaxLoss").getBytes(StandardCharsets.UTF_8));
        MultiLayerNetwork back = NetworkFiles.readMultiLayer(old, false);
        assertEquals(BiasedSoftmaxLoss.class, ((org.deeplearning4j.nn.conf.layers.BaseOutputLayer) back.getLayerWiseConfigurations()
                .getConf(1).getLayer()).getLossFn().getClass());
        assertArrayEquals(net.params().toFloatVector(), back.params().toFloatVector());
    }

    @Test
    void aFileThatIsNoZipIsOneErrorNamingIt(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("model.zip"), "not a zip at all");
        IOException e = assertThrows(IOException.class, () -> NetworkFiles.readMultiLayer(file, true));
        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    }

    private static byte[] entry(Path zip, String name) throws IOException {
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(Files.readAllBytes(zip)))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) if (e.getName().equals(name)) return in.readAllBytes();
        }
        throw new IOException("no " + name);
    }

    /** A copy of {@code zip} with entry {@code name} replaced or added. */
    private static Path withEntry(Path zip, Path out, String name, byte[] content) throws IOException {
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip));
             ZipOutputStream o = new ZipOutputStream(Files.newOutputStream(out))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                if (e.getName().equals(name)) continue;
                o.putNextEntry(new ZipEntry(e.getName()));
                o.write(in.readAllBytes());
                o.closeEntry();
            }
            o.putNextEntry(new ZipEntry(name));
            o.write(content);
            o.closeEntry();
        }
        return out;
    }
}
