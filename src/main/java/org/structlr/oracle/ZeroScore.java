package org.structlr.oracle;

import java.io.IOException;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/** g = 0 for every row and class. */
public final class ZeroScore implements ScoreFunction {

    public static final String KIND = "zero";
    private final int numClasses;

    public ZeroScore(int numClasses) {
        if (numClasses < 1) throw new IllegalArgumentException("zero score: number of classes must be >= 1");
        this.numClasses = numClasses;
    }

    @Override
    public INDArray scores(INDArray features) {
        ScoreFunctions.checkFeatures(features, -1, "zero score");
        return Nd4j.zeros(features.dataType(), features.size(0), numClasses);
    }

    @Override
    public int numClasses() {
        return numClasses;
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
        return "zero: g = 0, " + numClasses + " classes";
    }

    @Override
    public void save(Path dir) throws IOException {
        ScoreFunctions.writeMeta(dir, ScoreFunctions.meta(this));
    }

    public static ZeroScore load(JsonNode meta) {
        return new ZeroScore(meta.path("numClasses").asInt());
    }

    @Override
    public String toString() {
        return describe();
    }
}
