package org.structlr.augment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.structlr.features.LabelResize;

class AugmentationTest {

    @Test
    void aFlipTwiceIsTheIdentity() {
        Random rnd = new Random(1);
        for (int t = 0; t < 20; t++) {
            int h = 1 + rnd.nextInt(9), w = 1 + rnd.nextInt(9);
            float[] f = new float[h * w];
            int[] y = new int[h * w];
            for (int i = 0; i < f.length; i++) {
                f[i] = rnd.nextFloat();
                y[i] = rnd.nextInt(5) - 1;
            }
            assertArrayEquals(f, Planes.flip(Planes.flip(f, h, w), h, w));
            assertArrayEquals(y, Planes.flip(Planes.flip(y, h, w), h, w));
            float[] once = Planes.flip(f, h, w);
            for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) assertEquals(f[r * w + c], once[r * w + w - 1 - c]);
        }
    }

    @Test
    void aCropsPixelsAreTheSourcesPixels() {
        int h = 7, w = 9;
        float[] f = new float[h * w];
        for (int i = 0; i < f.length; i++) f[i] = i;
        float[] c = Planes.crop(f, h, w, 2, 5, 3, 8);
        assertEquals(3 * 5, c.length);
        for (int r = 0; r < 3; r++) for (int k = 0; k < 5; k++) assertEquals(f[(r + 2) * w + k + 3], c[r * 5 + k]);
        assertThrows(IllegalArgumentException.class, () -> Planes.crop(f, h, w, 2, 2, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Planes.crop(f, h, w, 0, 8, 0, 1));
    }

    /** The same crop and flip on an image plane and a label plane of the same size: pixel k of both comes from the same source pixel. */
    @Test
    void oneTransformMovesImageAndLabelsAlike() {
        Augmentation a = new Augmentation(true, 0.5, 0.8, 1.25, 0.2);
        Random rnd = new Random(9);
        int h = 13, w = 17;
        float[] index = new float[h * w];
        int[] labels = new int[h * w];
        for (int i = 0; i < index.length; i++) {
            index[i] = i;
            labels[i] = i;   // the label is the source position
        }
        Set<Integer> sizes = new HashSet<>();
        for (int t = 0; t < 50; t++) {
            Augmentation.Transform x = a.draw(rnd);
            float[] img = x.geometry(index, h, w);
            int[] lab = x.geometry(labels, h, w);
            int[] s = x.size(h, w);
            assertEquals(s[0] * s[1], lab.length);
            sizes.add(s[0] * 100 + s[1]);
            for (int i = 0; i < lab.length; i++) assertEquals(lab[i], (int) img[i]);
            assertTrue(x.scale() >= 0.8 && x.scale() <= 1.25, "scale " + x.scale());
            assertTrue(x.brightness() >= 0.8 && x.brightness() <= 1.2);
        }
        assertTrue(sizes.size() > 5, "crops of many sizes: " + sizes);
    }

    @Test
    void drawsAreSeeded() {
        Augmentation a = new Augmentation(true, 0.7, 0.5, 2, 0.3);
        assertEquals(a.draw(new Random(42)), a.draw(new Random(42)));
        assertNotEquals(a.draw(new Random(42)), a.draw(new Random(43)));
        // switched-off parts stay the identity whatever is drawn
        Augmentation none = Augmentation.NONE;
        for (int s = 0; s < 10; s++) {
            Augmentation.Transform t = none.draw(new Random(s));
            assertEquals(Augmentation.Transform.IDENTITY, t);
        }
    }

    @Test
    void jitterStaysInRangeAndTheIdentityChangesNothing() {
        float[][] rgb = {{0, 255, 100, 30}, {0, 255, 200, 60}, {0, 255, 50, 90}};
        float[][] copy = {rgb[0].clone(), rgb[1].clone(), rgb[2].clone()};
        Augmentation.Transform.IDENTITY.jitter(rgb);
        for (int c = 0; c < 3; c++) assertArrayEquals(copy[c], rgb[c]);
        new Augmentation.Transform(false, 0, 0, 1, 1, 1, 1.5, 1.5, 1.5).jitter(rgb);
        for (float[] p : rgb) for (float v : p) assertTrue(v >= 0 && v <= 255, "clamped: " + v);
        // saturation 0 makes every pixel grey (R = G = B)
        float[][] g = {copy[0].clone(), copy[1].clone(), copy[2].clone()};
        new Augmentation.Transform(false, 0, 0, 1, 1, 1, 1, 1, 0).jitter(g);
        for (int i = 0; i < 4; i++) {
            assertEquals(g[0][i], g[1][i], 1e-3);
            assertEquals(g[1][i], g[2][i], 1e-3);
        }
    }

    @Test
    void refusesBadSettings() {
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(true, 0, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(true, 1, 2, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(true, 1, 1, 1, 1));
    }

    /** The label vote: brute force over a fine grid of sub-pixels gives the same majority (ties to the smaller label). */
    @Test
    void labelResizeIsTheAreaMajority() {
        Random rnd = new Random(5);
        for (int t = 0; t < 40; t++) {
            int sh = 1 + rnd.nextInt(12), sw = 1 + rnd.nextInt(12), th = 1 + rnd.nextInt(12), tw = 1 + rnd.nextInt(12);
            int[] src = new int[sh * sw];
            for (int i = 0; i < src.length; i++) src[i] = rnd.nextInt(4) - 1;
            int[] got = LabelResize.majority(src, sh, sw, th, tw, 2);
            // brute force: split every source pixel into th x tw sub-pixels and every target pixel into sh x sw, count
            for (int R = 0; R < th; R++) {
                for (int C = 0; C < tw; C++) {
                    long[] votes = new long[4];
                    for (int y = R * sh; y < (R + 1) * sh; y++) {
                        for (int x = C * sw; x < (C + 1) * sw; x++) votes[src[(y / th) * sw + x / tw] + 1]++;
                    }
                    int best = 0;
                    for (int k = 1; k < 4; k++) if (votes[k] > votes[best]) best = k;
                    assertEquals(best - 1, got[R * tw + C], "target (" + R + ", " + C + ") of " + sh + "x" + sw + " -> " + th + "x" + tw);
                }
            }
        }
        int[] same = {0, 1, -1, 2};
        assertArrayEquals(same, LabelResize.majority(same, 2, 2, 2, 2, 2));
        // enlargement is nearest neighbour
        assertArrayEquals(new int[] {0, 0, 1, 1, 0, 0, 1, 1}, LabelResize.majority(new int[] {0, 1}, 1, 2, 2, 4, 1));
    }
}
