package org.structlr.features;

/**
 * Resizes a plane of labels without inventing labels: every target pixel takes the label that
 * covers most of its area in the source (an area-weighted majority vote; ties go to the smaller
 * label, void = -1 counting as the smallest), so a label plane is never interpolated. For
 * enlargements each target pixel lies within one source pixel (or straddles two) and this is
 * nearest-neighbour resizing; for reductions it is the vote that INTER_AREA's average would be for
 * a one-hot encoding of the labels, the label analogue of how images are resized.
 *
 * <p>Exact integer arithmetic: in units of 1 / (target size) of a source pixel, source row r spans
 * [r th, (r + 1) th) and target row R spans [R sh, (R + 1) sh), so every overlap is an integer and
 * ties are real ties, not rounding. Written by hand: OpenCV's INTER_NEAREST picks one source
 * pixel per target pixel (not the majority), and no image library votes.
 */
public final class LabelResize {
    private LabelResize() {}

    /**
     * @param labels     row-major {@code [sh * sw]} labels, each in {@code -1 .. maxLabel}
     * @param maxLabel   the largest label that may occur
     * @return row-major {@code [th * tw]} labels
     */
    public static int[] majority(int[] labels, int sh, int sw, int th, int tw, int maxLabel) {
        if (labels.length != (long) sh * sw) throw new IllegalArgumentException(labels.length + " labels, not " + sh + "*" + sw);
        if (th < 1 || tw < 1) throw new IllegalArgumentException("target size must be positive, got " + th + "x" + tw);
        if (sh == th && sw == tw) return labels.clone();
        int[][] rows = spans(sh, th), cols = spans(sw, tw);
        long[] votes = new long[maxLabel + 2];   // index label + 1
        int[] out = new int[th * tw];
        for (int R = 0; R < th; R++) {
            int r0 = rows[R][0], r1 = rows[R][1];
            for (int C = 0; C < tw; C++) {
                int c0 = cols[C][0], c1 = cols[C][1];
                java.util.Arrays.fill(votes, 0);
                for (int r = r0; r < r1; r++) {
                    long wr = overlap(r, R, th, sh);
                    for (int c = c0; c < c1; c++) {
                        int y = labels[r * sw + c];
                        if (y < -1 || y > maxLabel) throw new IllegalArgumentException("label " + y + " outside -1.." + maxLabel);
                        votes[y + 1] += wr * overlap(c, C, tw, sw);
                    }
                }
                int best = 0;
                for (int k = 1; k < votes.length; k++) if (votes[k] > votes[best]) best = k;
                out[R * tw + C] = best - 1;
            }
        }
        return out;
    }

    /** For each target index T, the source indices [from, to) that overlap it. */
    private static int[][] spans(int source, int target) {
        int[][] s = new int[target][2];
        for (int t = 0; t < target; t++) {
            // target t spans [t * source, (t + 1) * source) in units where source s spans [s * target, (s + 1) * target)
            s[t][0] = (int) ((long) t * source / target);
            s[t][1] = (int) Math.min(source, ((long) (t + 1) * source + target - 1) / target);
        }
        return s;
    }

    /** The length of [s * target, (s + 1) * target) ∩ [t * source, (t + 1) * source). */
    private static long overlap(int s, int t, int target, int source) {
        long lo = Math.max((long) s * target, (long) t * source), hi = Math.min((long) (s + 1) * target, (long) (t + 1) * source);
        return Math.max(0, hi - lo);
    }
}
