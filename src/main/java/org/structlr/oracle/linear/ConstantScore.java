package org.structlr.oracle.linear;

import org.structlr.oracle.ParametricScore;
import org.structlr.oracle.ScoreFunctions;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** g(phi, c) = w_c, ignoring the features. Saved as JSON (the weights in full double precision). */
public final class ConstantScore implements ParametricScore {

    static final String KIND = "constant";
    private final double[] w;

    public ConstantScore(double[] weights) {
        if (weights == null || weights.length < 1) throw new IllegalArgumentException("constant score: needs >= 1 weight");
        for (double v : weights) {
            if (!Double.isFinite(v)) throw new IllegalArgumentException("constant score: weights must be finite");
        }
        this.w = weights.clone();
    }

    /** A copy of the weights w_c. */
    @Override
    public double[] parameters() {
        return weights();
    }

    @Override
    public ConstantScore withParameters(double[] parameters) {
        if (parameters.length != w.length) throw new IllegalArgumentException("constant function has " + w.length + " parameters, got " + parameters.length);
        return new ConstantScore(parameters);
    }

    public double[] weights() {
        return w.clone();
    }

    @Override
    public INDArray scores(INDArray features) {
        ScoreFunctions.checkFeatures(features, -1, "constant score");
        INDArray row = Nd4j.create(w, new long[]{1, w.length}, DataType.DOUBLE).castTo(features.dataType());
        return Nd4j.zeros(features.dataType(), features.size(0), w.length).addiRowVector(row);
    }

    @Override
    public int numClasses() {
        return w.length;
    }

    @Override
    public int numFeatures() {
        return -1;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "constant: g(phi, c) = w_c, w = " + Arrays.toString(w);
    }

    @Override
    public void save(Path dir) throws IOException {
        ObjectNode meta = ScoreFunctions.meta(this);
        ArrayNode a = meta.putArray("weights");
        for (double v : w) a.add(v);
        ScoreFunctions.writeMeta(dir, meta);
    }

    static ConstantScore load(JsonNode meta) throws IOException {
        JsonNode a = meta.path("weights");
        int c = meta.path("numClasses").asInt();
        if (!a.isArray() || a.size() != c) throw new IOException("constant score: expected " + c + " weights");
        double[] w = new double[c];
        for (int i = 0; i < c; i++) w[i] = a.get(i).asDouble();
        return new ConstantScore(w);
    }

    @Override
    public String toString() {
        return describe();
    }
}
