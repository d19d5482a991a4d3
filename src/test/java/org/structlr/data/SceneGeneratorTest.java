package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SceneGeneratorTest {
    @TempDir
    Path tmp;

    @Test
    void scenesHaveEveryClassVoidBoundariesAndVaryingSizes() {
        List<SceneGenerator.Scene> scenes = new SceneGenerator().generate(30, 7);
        Set<Integer> classes = new HashSet<>(), sizes = new HashSet<>();
        for (SceneGenerator.Scene s : scenes) {
            sizes.add(s.height() * 1000 + s.width());
            assertTrue(s.height() >= 48 && s.height() <= 72 && s.width() >= 48 && s.width() <= 72);
            int w = s.width();
            int voids = 0;
            for (int i = 0; i < s.mask().length; i++) {
                int v = s.mask()[i];
                if (v == SceneGenerator.VOID) {
                    voids++;
                    continue;
                }
                classes.add(v);
                // a labelled pixel's 4-neighbours are its class or void (void separates the classes)
                int y = i / w, x = i % w;
                int[][] nb = {{y, x - 1}, {y, x + 1}, {y - 1, x}, {y + 1, x}};
                for (int[] n : nb) {
                    if (n[0] < 0 || n[1] < 0 || n[0] >= s.height() || n[1] >= w) continue;
                    int u = s.mask()[n[0] * w + n[1]];
                    assertTrue(u == v || u == SceneGenerator.VOID, "class " + v + " touches class " + u);
                }
            }
            assertTrue(voids > 0 && voids < s.mask().length / 3, "void boundaries: " + voids + " of " + s.mask().length);
        }
        assertEquals(Set.of(0, 1, 2, 3, 4), classes);
        assertTrue(sizes.size() > 15, "sizes vary");
    }

    @Test
    void deterministicForASeed() throws Exception {
        new SceneGenerator(16, 24).write(tmp.resolve("a"), 5, 3);
        new SceneGenerator(16, 24).write(tmp.resolve("b"), 5, 3);
        for (String f : List.of("images/scene000.png", "masks/scene004.png", "classes.json", "lists/train.txt", "lists/test.txt")) {
            assertArrayEquals(Files.readAllBytes(tmp.resolve("a").resolve(f)), Files.readAllBytes(tmp.resolve("b").resolve(f)), f);
        }
        assertEquals(SceneGenerator.classes(), ClassTable.read(tmp.resolve("a/classes.json")));
        assertEquals(List.of("scene000", "scene001", "scene002"), Files.readAllLines(tmp.resolve("a/lists/train.txt")));
    }
}
