package org.structlr.inference;

import org.structlr.inference.loop.LoopMessagePassing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.FactorGraph;

class MapDecoderTest {

    static MapDecoder.Result decode(RandomPairwiseModels.Model m, MapDecoder.Kind kind, double eps, int sweeps) {
        FactorGraph g = m.graph();
        int L = g.maxLabels();
        try (MessagePassing mp = new LoopMessagePassing(g, eps)) {
            mp.setPotentials(Nd4j.create(m.unary(), new long[] {g.numVariables(), L}, DataType.DOUBLE),
                    Nd4j.create(m.pairwise(), new long[] {g.numEdges(), (long) L * L}, DataType.DOUBLE));
            return new MapDecoder(kind, m.energy()).run(mp, new StopRule(sweeps, 0, 10));
        }
    }

    @Test
    void energyIsTheExactScore() {
        RandomPairwiseModels.Model m = RandomPairwiseModels.hardConstrained(3, 7, 3, 0.4, 0.2);
        Random rnd = new Random(1);
        LabelingEnergy en = m.energy();
        int infeasible = 0;
        for (int t = 0; t < 200; t++) {
            int[] y = new int[7];
            for (int i = 0; i < 7; i++) y[i] = rnd.nextInt(3);
            double want = ExactInference.score(m.graph(), m.unaryRows(), m.pairwiseRows(), y);
            assertEquals(want, en.energy(y), 1e-12);
            if (want == Double.NEGATIVE_INFINITY) infeasible++;
        }
        assertTrue(infeasible > 0 && infeasible < 200, "the sample covers both feasible and infeasible labellings: " + infeasible);
    }

    @Test
    void icmNeverDecreasesAndStopsAtALocalMaximum() {
        RandomPairwiseModels.Model m = RandomPairwiseModels.hardConstrained(5, 12, 3, 0.3, 0.1);
        LabelingEnergy en = m.energy();
        Random rnd = new Random(2);
        for (int t = 0; t < 20; t++) {
            int[] y = new int[12];
            for (int i = 0; i < 12; i++) y[i] = rnd.nextInt(3);
            double before = en.energy(y);
            double after = en.icm(y, 1000);
            assertTrue(after >= before, before + " -> " + after);
            assertEquals(en.energy(y), after, 0);
            for (int i = 0; i < 12; i++) {
                for (int l = 0; l < 3; l++) {
                    assertTrue(en.local(i, l, y) <= en.local(i, y[i], y), "no single change improves");
                }
            }
        }
    }

    /**
     * 60 random models (10 variables, 3 labels, about 40% of pairs joined, 15% of entries hard
     * zeros): no decoder is below argmax, and the number of exact MAPs found (by enumeration) is
     * the one measured when the decoders were written; a change in the decoders shows up here.
     */
    @Test
    void decodersNeverLoseToArgmaxAndFindTheExactMap() {
        int models = 60;
        Map<MapDecoder.Kind, Integer> exact = new EnumMap<>(MapDecoder.Kind.class);
        for (MapDecoder.Kind k : MapDecoder.Kind.values()) exact.put(k, 0);
        for (int s = 0; s < models; s++) {
            RandomPairwiseModels.Model m = RandomPairwiseModels.hardConstrained(100 + s, 10, 3, 0.4, 0.15);
            double map = ExactInference.solve(m.graph(), m.unaryRows(), m.pairwiseRows(), 1.0).mapScore();
            double argmax = Double.NaN;
            for (MapDecoder.Kind k : MapDecoder.Kind.values()) {
                MapDecoder.Result r = decode(m, k, 0.05, 200);
                assertEquals(m.energy().energy(r.labels()), r.energy(), 0, "the reported energy is that of the labels");
                assertTrue(r.energy() <= map, "no labelling beats the exact MAP");
                if (k == MapDecoder.Kind.argmax) argmax = r.energy();
                else assertTrue(r.energy() >= argmax, k + " on model " + s + ": " + r.energy() + " < argmax " + argmax);
                if (r.energy() == map) exact.merge(k, 1, Integer::sum);
            }
        }
        System.out.println("exact MAPs found of " + models + ": " + exact);
        assertEquals(Map.of(MapDecoder.Kind.argmax, 33, MapDecoder.Kind.best, 37, MapDecoder.Kind.icm, 43, MapDecoder.Kind.round, 53), exact);
    }
}
