package org.structlr.features;

import java.nio.file.Path;

/**
 * One image of the horse data set at the working size: colours and the figure/ground labels of
 * the same {@code height x width} pixel grid (row-major, variable = row * width + col).
 *
 * @param number  the image number NNN of {@code horseNNN}
 * @param rgbFile the colour image it was read from (named in error messages)
 * @param rgb     {@code [H * W * 3]} pixel-major R, G, B in [0, 1]
 * @param labels  {@code [H * W]}: 1 = horse (mask value at least 128), 0 = background
 */
record HorseImage(int number, Path rgbFile, int height, int width, float[] rgb, int[] labels) {
    public HorseImage {
        if (height < 1 || width < 1) throw new IllegalArgumentException("image of " + height + "x" + width + " has no pixels");
        if (rgb.length != 3 * height * width) throw new IllegalArgumentException("rgb has " + rgb.length + " values, not 3*" + height + "*" + width);
        if (labels.length != height * width) throw new IllegalArgumentException("labels have " + labels.length + " values, not " + height + "*" + width);
    }

    /** The fraction of pixels labelled horse. */
    public double horseFraction() {
        long n = 0;
        for (int y : labels) n += y;
        return (double) n / labels.length;
    }
}
