package org.structlr.oracle.nn;

import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A score function held as a DL4J network whose IDENTITY output layer carries {@link BiasedSoftmaxLoss}
 * (linear, MLP, CNN): {@code output(features)} is g. Saved with ModelSerializer including the updater
 * state, plus the common metadata and {@code fits}, the number of oracle calls that produced it (it
 * seeds the next call's shuffling). The subclasses only say what the network is.
 */
public abstract class NetworkScore implements ScoreFunction {
    protected final MultiLayerNetwork net;
    private final int numFeatures;
    private final int numClasses;
    private final int fits;

    protected NetworkScore(MultiLayerNetwork net, int numFeatures, int fits) {
        this.net = net;
        this.numFeatures = numFeatures;
        this.numClasses = (int) net.getLayer(net.getnLayers() - 1).getParam("W").size(1);
        this.fits = fits;
    }

    int fits() {
        return fits;
    }

    /** A private copy of the network (with structlr's loss on its output layer); used by the oracles and by export. */
    public MultiLayerNetwork networkCopy() {
        return NetworkCopies.copy(net);
    }

    @Override
    public INDArray scores(INDArray features) {
        ScoreFunctions.checkFeatures(features, numFeatures, kind() + " score");
        return Nets.output(net, features);
    }

    @Override
    public int numClasses() {
        return numClasses;
    }

    @Override
    public int numFeatures() {
        return numFeatures;
    }

    /** Kind-specific metadata beyond the common fields and {@code fits}. */
    void addMeta(ObjectNode meta) {}

    @Override
    public void save(Path dir) throws IOException {
        Nets.save(net, dir);
        ObjectNode meta = ScoreFunctions.meta(this);
        meta.put("fits", fits);
        addMeta(meta);
        ScoreFunctions.writeMeta(dir, meta);
    }

    /** Refuses a loaded network whose shape disagrees with its metadata. */
    protected static <S extends NetworkScore> S checkShape(S s, Path dir, JsonNode meta) throws IOException {
        if (s.numClasses() != meta.path("numClasses").asInt() || s.numFeatures() != meta.path("numFeatures").asInt()) {
            throw new IOException(dir + ": network shape does not match " + ScoreFunctions.META_FILE);
        }
        return s;
    }

    @Override
    public String toString() {
        return describe();
    }
}
