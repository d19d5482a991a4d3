package org.structlr.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API on examples made from arrays in memory: chains whose labels follow a noisy feature. */
class ApiTest {

    /** A chain of n variables; feature = label + noise, pairwise feature = 1 (labels tend to repeat). */
    static CrfExample chain(Random rnd, int n) {
        int[] y = new int[n];
        y[0] = rnd.nextInt(2);
        for (int i = 1; i < n; i++) y[i] = rnd.nextDouble() < 0.9 ? y[i - 1] : 1 - y[i - 1];
        float[] u = new float[2 * n];
        for (int i = 0; i < n; i++) {
            u[2 * i] = 1;
            u[2 * i + 1] = (float) (y[i] + 1.2 * rnd.nextGaussian());
        }
        int[] edges = new int[2 * (n - 1)];
        float[] p = new float[n - 1];
        for (int e = 0; e < n - 1; e++) {
            edges[2 * e] = e;
            edges[2 * e + 1] = e + 1;
            p[e] = 1;
        }
        return CrfExample.of(u, 2, edges, p, 1, y);
    }

    static CrfData data() {
        Random rnd = new Random(11);
        List<CrfExample> train = new ArrayList<>(), test = new ArrayList<>();
        for (int k = 0; k < 6; k++) train.add(chain(rnd, 60));
        for (int k = 0; k < 4; k++) test.add(chain(rnd, 60));
        return CrfData.of(train, test);
    }

    @Test
    void inMemoryTrainPredictSaveLoad(@TempDir Path tmp) throws Exception {
        CrfData data = data();
        assertEquals(2, data.numLabels());
        Crf alone = CrfTrainer.builder().unary("linear").pairwise("zero").iterations(5).sweeps(10).evalSweeps(0).build().train(data);
        Crf crf = CrfTrainer.builder().unary("linear").pairwise("linear").iterations(5).sweeps(10).evalSweeps(0).build().train(data);
        assertEquals("linear", crf.settings().get("pairwise"));

        List<Prediction> batch = crf.predict(data.test()), baseline = alone.predict(data.test());
        double err = 0, errAlone = 0;
        for (int k = 0; k < batch.size(); k++) {
            Prediction p = batch.get(k);
            assertEquals(60, p.labels().length);
            for (int v = 0; v < 60; v++) {   // labels are the argmax of the marginals, which sum to 1
                assertEquals(1.0, p.marginals()[v][0] + p.marginals()[v][1], 1e-4);
                assertEquals(p.marginals()[v][1] > p.marginals()[v][0] ? 1 : 0, p.labels()[v], "variable " + v);
            }
            err += p.error();
            errAlone += baseline.get(k).error();
        }
        // the chain's pairwise functions must help over labelling each variable alone
        assertTrue(err < errAlone, "pairwise " + err / 4 + " vs unary only " + errAlone / 4);

        // one example predicts as it does within the batch (the union graph has no edges between examples)
        Prediction one = crf.predict(data.test().get(2));
        assertArrayEquals(batch.get(2).labels(), one.labels());

        crf.save(tmp.resolve("m"));
        Crf loaded = Crf.load(tmp.resolve("m"));
        assertArrayEquals(one.labels(), loaded.predict(data.test().get(2)).labels());
        assertTrue(Double.isNaN(loaded.predict(CrfExample.of(new float[]{1, 0.5f, 1, 0.2f}, 2, new int[]{0, 1}, new float[]{1}, 1, null)).error()));
    }

    /** Region factors from the API: a 2x2-patch model trains, saves and loads with identical predictions; a chain is no image. */
    @Test
    void patchModelsTrainSaveAndLoad(@TempDir Path tmp) throws Exception {
        new org.structlr.data.DenoisingGenerator().generateTo(tmp.resolve("d"), 2, 2, 8, 8, 5);
        CrfData images = CrfData.read(tmp.resolve("d"));
        Crf crf = CrfTrainer.builder().regions("patches2x2").iterations(2).sweeps(3).evalSweeps(0).build().train(images);
        assertEquals("patches2x2", crf.settings().get("regions"));
        crf.save(tmp.resolve("m"));
        Crf loaded = Crf.load(tmp.resolve("m"));
        List<Prediction> a = crf.predict(images.test()), b = loaded.predict(images.test());
        for (int k = 0; k < a.size(); k++) {
            assertArrayEquals(a.get(k).labels(), b.get(k).labels());
            for (int v = 0; v < a.get(k).labels().length; v++) assertArrayEquals(a.get(k).marginals()[v], b.get(k).marginals()[v]);
        }
        org.structlr.data.BadInputException e = assertThrows(org.structlr.data.BadInputException.class,
                () -> CrfTrainer.builder().regions("patches2x2").iterations(1).build().train(data()));
        assertTrue(e.getMessage().contains("--regions patches2x2 needs images"), e.getMessage());
    }

    @Test
    void anUnknownFunctionClassIsRefusedWithTheRegisteredNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CrfTrainer.builder().unary("forest").build());
        assertTrue(e.getMessage().startsWith("unknown function class 'forest'; expected one of zero, const, linear, mlp, boost, cnn"), e.getMessage());
    }
}
