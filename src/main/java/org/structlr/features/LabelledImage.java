package org.structlr.features;

import java.nio.file.Path;

/**
 * One image at its working size with the label of every pixel: colours and labels of the same
 * {@code height x width} grid (row-major, variable = row * width + col).
 *
 * @param name      the example's name (its .npz file name without extension)
 * @param imageFile the colour image it was read from (named in error messages)
 * @param rgb       {@code [H * W * 3]} pixel-major R, G, B in [0, 1]
 * @param labels    {@code [H * W]}: class indices, or {@link org.structlr.data.Example#VOID} for no label
 */
public record LabelledImage(String name, Path imageFile, int height, int width, float[] rgb, int[] labels) {
    public LabelledImage {
        if (height < 1 || width < 1) throw new IllegalArgumentException("image of " + height + "x" + width + " has no pixels");
        if (rgb.length != 3 * height * width) throw new IllegalArgumentException("rgb has " + rgb.length + " values, not 3*" + height + "*" + width);
        if (labels.length != height * width) throw new IllegalArgumentException("labels have " + labels.length + " values, not " + height + "*" + width);
    }

    /** The fraction of pixels labelled {@code label} (void counts in the denominator). */
    public double fraction(int label) {
        long n = 0;
        for (int y : labels) if (y == label) n++;
        return (double) n / labels.length;
    }

    /** Whether every pixel is void. */
    public boolean allVoid() {
        for (int y : labels) if (y != org.structlr.data.Example.VOID) return false;
        return true;
    }
}
