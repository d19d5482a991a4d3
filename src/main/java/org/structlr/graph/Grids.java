package org.structlr.graph;

import java.util.Arrays;
import java.util.List;

/** Builders for 4-connected grid graphs over row-major pixels (variable = row * width + col). */
public final class Grids {
    private Grids() {}

    /** Edge order: all horizontal edges (row-major), then all vertical edges (row-major). */
    public static FactorGraph grid(int height, int width, int labels, boolean typePerDirection) {
        if (height < 1 || width < 1) throw new IllegalArgumentException("grid of " + height + "x" + width + " has no pixels");
        int nh = height * (width - 1), nv = (height - 1) * width;
        int[] from = new int[nh + nv], to = new int[nh + nv], type = new int[nh + nv];
        int e = 0;
        for (int r = 0; r < height; r++) {
            for (int c = 0; c + 1 < width; c++, e++) {
                from[e] = r * width + c;
                to[e] = r * width + c + 1;
            }
        }
        for (int r = 0; r + 1 < height; r++) {
            for (int c = 0; c < width; c++, e++) {
                from[e] = r * width + c;
                to[e] = (r + 1) * width + c;
                type[e] = typePerDirection ? 1 : 0;
            }
        }
        int[] l = new int[height * width];
        Arrays.fill(l, labels);
        return FactorGraph.builder(l)
                .edges(from, to, type)
                .pairTypeNames(typePerDirection ? List.of("horizontal", "vertical") : List.of("pairwise"))
                .build();
    }

    public static Coloring checkerboard(int height, int width) {
        return Coloring.checkerboard(height, width, 1);
    }
}
