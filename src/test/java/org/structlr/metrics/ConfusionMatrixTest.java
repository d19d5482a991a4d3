package org.structlr.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.structlr.data.ClassTable;
import org.structlr.data.Example;

class ConfusionMatrixTest {

    /** A small case worked by hand: 3 classes, two void pixels. */
    @Test
    void handWorkedExample() {
        int[] truth = {0, 0, 0, 1, 1, 2, -1, -1};
        int[] pred = {0, 0, 1, 1, 2, 2, 0, 2};
        ConfusionMatrix m = ConfusionMatrix.of(truth, pred, 3);
        assertEquals(6, m.total(), "void pixels are not counted");
        assertEquals(4.0 / 6, m.pixelAccuracy(), 1e-15);
        assertEquals(2.0 / 3, m.iou(0), 1e-15);   // tp 2, truth 3, predicted 2 (void pixels' predictions do not count)
        assertEquals(1.0 / 3, m.iou(1), 1e-15);   // tp 1, truth 2, predicted 2
        assertEquals(1.0 / 2, m.iou(2), 1e-15);   // tp 1, truth 1, predicted 2
        assertEquals((2.0 / 3 + 1.0 / 3 + 1.0 / 2) / 3, m.meanIou(), 1e-15);
        assertEquals(1.0 / 2, m.classAccuracy(1), 1e-15);
    }

    /** IoU from its set definition, |truth_c ∩ pred_c| / |truth_c ∪ pred_c| over the labelled pixels, on random labellings. */
    @Test
    void matchesTheSetDefinitionsOnRandomLabellings() {
        Random rnd = new Random(7);
        for (int trial = 0; trial < 50; trial++) {
            int L = 2 + rnd.nextInt(5), n = 1 + rnd.nextInt(300);
            int[] truth = new int[n], pred = new int[n];
            for (int i = 0; i < n; i++) {
                truth[i] = rnd.nextInt(10) == 0 ? Example.VOID : rnd.nextInt(L - (trial % 2));   // odd trials: the top class never true
                pred[i] = rnd.nextInt(L);
            }
            ConfusionMatrix m = ConfusionMatrix.of(truth, pred, L);
            int labelled = 0, right = 0;
            double iouSum = 0;
            int present = 0;
            for (int c = 0; c < L; c++) {
                Set<Integer> t = new HashSet<>(), p = new HashSet<>();
                for (int i = 0; i < n; i++) {
                    if (truth[i] == Example.VOID) continue;
                    if (truth[i] == c) t.add(i);
                    if (pred[i] == c) p.add(i);
                }
                Set<Integer> union = new HashSet<>(t), inter = new HashSet<>(t);
                union.addAll(p);
                inter.retainAll(p);
                if (union.isEmpty()) {
                    assertTrue(Double.isNaN(m.iou(c)), "a class neither true nor predicted has no IoU");
                } else {
                    assertEquals((double) inter.size() / union.size(), m.iou(c), 1e-12);
                    iouSum += (double) inter.size() / union.size();
                    present++;
                }
            }
            for (int i = 0; i < n; i++) {
                if (truth[i] == Example.VOID) continue;
                labelled++;
                if (truth[i] == pred[i]) right++;
            }
            assertEquals(labelled, m.total());
            assertEquals(labelled == 0 ? Double.NaN : (double) right / labelled, m.pixelAccuracy(), 1e-12);
            assertEquals(present == 0 ? Double.NaN : iouSum / present, m.meanIou(), 1e-12);
        }
    }

    @Test
    void flippingTheLabelOfAVoidPixelChangesNothing() {
        int[] truth = {0, 1, -1, 1}, pred = {0, 1, 0, 0};
        ConfusionMatrix a = ConfusionMatrix.of(truth, pred, 2);
        pred[2] = 1;
        ConfusionMatrix b = ConfusionMatrix.of(truth, pred, 2);
        assertEquals(a.toMap(ClassTable.numbered(2, 255)), b.toMap(ClassTable.numbered(2, 255)));
    }

    @Test
    void mapsNameClassesAndRoundTripTheCounts() {
        ConfusionMatrix m = ConfusionMatrix.of(new int[] {0, 1, 1, 2}, new int[] {0, 1, 2, 2}, 3);
        ClassTable t = ClassTable.fromObject(List.of(Map.of("name", "sky", "index", 0), Map.of("name", "tree", "index", 1),
                Map.of("name", "road", "index", 2)), "t");
        Map<String, Object> map = m.toMap(t);
        assertEquals(0.75, (Double) map.get("pixel_accuracy"), 1e-15);
        @SuppressWarnings("unchecked")
        Map<String, Object> tree = ((List<Map<String, Object>>) map.get("per_class")).get(1);
        assertEquals("tree", tree.get("name"));
        assertEquals(0.5, (Double) tree.get("iou"), 1e-15);
        @SuppressWarnings("unchecked")
        List<List<Long>> rows = (List<List<Long>>) map.get("confusion");
        assertEquals(List.of(List.of(1L, 0L, 0L), List.of(0L, 1L, 1L), List.of(0L, 0L, 1L)), rows);
        ConfusionMatrix back = ConfusionMatrix.fromCounts(rows.stream().map(r -> r.stream().mapToLong(Long::longValue).toArray()).toArray(long[][]::new));
        assertEquals(map, back.toMap(t));
    }

    @Test
    void refusesLabelsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> ConfusionMatrix.of(new int[] {2}, new int[] {0}, 2));
        assertThrows(IllegalArgumentException.class, () -> ConfusionMatrix.of(new int[] {0}, new int[] {-1}, 2));
        assertThrows(IllegalArgumentException.class, () -> ConfusionMatrix.of(new int[] {0, 1}, new int[] {0}, 2));
    }
}
