package org.structlr.learn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.Example;
import org.structlr.model.ExampleBatch;

/**
 * F(x, y), the potentials at the true labels ({@link Targets#score}), equals the sum written out over
 * the labels and the edges' joint labels, void variables and the edges touching them left out:
 * for potentials ND4J laid out row-major and for column-major ones (read through a copy).
 */
class TargetsScoreTest {
    @Test
    void scoreIsTheSumOfThePotentialsAtTheTruth() {
        Dataset d = new DenoisingGenerator().generate(2, 1, 9, 7, 3);
        for (boolean withVoid : new boolean[] {false, true}) {
            List<Example> ex = withVoid ? d.train().stream().map(e -> VoidLabelsLearnerTest.partial(e, false, 1)).toList() : d.train();
            ExampleBatch b = new ExampleBatch(ex, 2, Training.pairTypeNames(d.numPairTypes()));
            Targets t = Targets.of(b);
            Nd4j.getRandom().setSeed(5);
            INDArray u = Nd4j.randn(DataType.FLOAT, b.graph().numVariables(), 2), p = Nd4j.randn(DataType.FLOAT, b.graph().numEdges(), 4);
            int[] y = b.labels(), joint = b.jointLabels();
            double want = 0;
            for (int v = 0; v < y.length; v++) if (y[v] != Example.VOID) want += u.getFloat(v, y[v]);
            for (int e = 0; e < joint.length; e++) if (joint[e] != Example.VOID) want += p.getFloat(e, joint[e]);
            assertEquals(want, t.score(u, p), 1e-9 * Math.abs(want), "row-major, void " + withVoid);
            assertEquals(want, t.score(u.dup('f'), p.dup('f')), 1e-9 * Math.abs(want), "column-major, void " + withVoid);
            if (withVoid) assertEquals(true, t.hasVoid());
        }
    }
}
