package org.structlr.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.graph.FactorGraph;

/**
 * Which factors over more than two variables (regions, the paper's general alpha) a model puts on
 * each image besides its unary factors and pairs: {@code train --regions}, recorded in model.json
 * so that prediction builds the same factors.
 * <ul>
 *   <li>{@link #NONE}: pairs only (the paper's model).</li>
 *   <li>{@link #PATCHES_2X2}: one factor over every 2x2 patch (variables top-left, top-right,
 *       bottom-left, bottom-right), type "patch2x2", L^4 joint labels; its features are those of
 *       its four edges side by side (top, bottom, left, right).</li>
 *   <li>{@link #TRIPLETS}: one factor over every three pixels in a row (type "row3") and in a
 *       column ("column3"), L^3 joint labels; features: its two edges' side by side.</li>
 * </ul>
 * The pairs stay in the model (each edge keeps its pairwise factor), so a region model can do all
 * a pairs-only model does. Regions need images whose edges are their 4-connected grid.
 */
public enum RegionLayout {
    NONE("none", List.of(), 0),
    PATCHES_2X2("patches2x2", List.of("patch2x2"), 4),
    TRIPLETS("triplets", List.of("row3", "column3"), 3);

    /** The most joint labels a region type may have: its function scores every one, for every region. */
    public static final int MAX_JOINT_LABELS = 1024;

    private final String label;
    private final List<String> typeNames;
    private final int size;

    RegionLayout(String label, List<String> typeNames, int size) {
        this.label = label;
        this.typeNames = typeNames;
        this.size = size;
    }

    /** The name on the command line and in model.json. */
    public String label() {
        return label;
    }

    /** The layout named {@code name} ({@link #label}); IllegalArgumentException listing the names otherwise. */
    public static RegionLayout of(String name) {
        for (RegionLayout r : values()) if (r.label.equals(name.toLowerCase(Locale.ROOT))) return r;
        throw new IllegalArgumentException("unknown region layout '" + name + "'; one of " + Arrays.stream(values()).map(RegionLayout::label).toList());
    }

    /** The region types' names (empty for {@link #NONE}). */
    public List<String> typeNames() {
        return typeNames;
    }

    public int numTypes() {
        return typeNames.size();
    }

    /** Variables per region (every type of a layout has the same). */
    public int regionSize() {
        return size;
    }

    /** Joint labels of a region type with {@code numLabels} labels per variable: L^k. */
    public int jointLabels(int numLabels) {
        long c = 1;
        for (int k = 0; k < size; k++) c *= numLabels;
        return (int) Math.min(Integer.MAX_VALUE, c);
    }

    /** Feature width of a region of any type: its edges' pairwise features side by side. */
    public int featureWidth(int pairDim) {
        return edgesPerRegion() * pairDim;
    }

    private int edgesPerRegion() {
        return switch (this) {
            case NONE -> 0;
            case PATCHES_2X2 -> 4;
            case TRIPLETS -> 2;
        };
    }

    /** Refuses a label count whose joint labels exceed {@link #MAX_JOINT_LABELS}. */
    public void checkLabels(int numLabels) {
        if (this != NONE && jointLabels(numLabels) > MAX_JOINT_LABELS) {
            throw new IllegalArgumentException("--regions " + label + " with " + numLabels + " labels gives " + numLabels + "^" + size
                    + " joint labels per region, more than " + MAX_JOINT_LABELS + " (each region's function scores all of them)");
        }
    }

    /** One example's regions: the graph with them, and per region type its features, row-major {@code [R_t, featureWidth]}. */
    public record Regions(FactorGraph graph, float[][] features, int[] counts) {}

    /**
     * {@code graph} (the example's) with this layout's regions, and their features.
     *
     * @throws BadInputException naming the example when it is no image whose edges are its 4-connected grid
     */
    public Regions of(Example ex, FactorGraph graph) {
        if (this == NONE) return new Regions(graph, new float[0][], new int[0]);
        int[] shape = ex.shape().orElseThrow(() -> new BadInputException(ex.name() + ": --regions " + label
                + " needs images (a 'shape' array), this example has none"));
        int h = shape[0], w = shape[1], d = ex.pairDim();
        int[] right = new int[h * w], down = new int[h * w];   // the edge from a pixel to its right / lower neighbour
        Arrays.fill(right, -1);
        Arrays.fill(down, -1);
        for (int e = 0; e < ex.numEdges(); e++) {
            int i = Math.min(ex.edgeFrom(e), ex.edgeTo(e)), j = Math.max(ex.edgeFrom(e), ex.edgeTo(e));
            if (j == i + 1 && j % w != 0) right[i] = e;
            else if (j == i + w) down[i] = e;
        }
        List<int[]> scopes = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        List<int[]> edges = new ArrayList<>();
        if (this == PATCHES_2X2) {
            for (int r = 0; r + 1 < h; r++) {
                for (int c = 0; c + 1 < w; c++) {
                    int tl = r * w + c, tr = tl + 1, bl = tl + w, br = bl + 1;
                    scopes.add(new int[] {tl, tr, bl, br});
                    types.add(0);
                    edges.add(new int[] {edge(ex, right, tl, tr), edge(ex, right, bl, br), edge(ex, down, tl, bl), edge(ex, down, tr, br)});
                }
            }
        } else {
            for (int r = 0; r < h; r++) {
                for (int c = 0; c + 2 < w; c++) {
                    int a = r * w + c;
                    scopes.add(new int[] {a, a + 1, a + 2});
                    types.add(0);
                    edges.add(new int[] {edge(ex, right, a, a + 1), edge(ex, right, a + 1, a + 2)});
                }
            }
            for (int r = 0; r + 2 < h; r++) {
                for (int c = 0; c < w; c++) {
                    int a = r * w + c;
                    scopes.add(new int[] {a, a + w, a + 2 * w});
                    types.add(1);
                    edges.add(new int[] {edge(ex, down, a, a + w), edge(ex, down, a + w, a + 2 * w)});
                }
            }
        }
        int[] counts = new int[numTypes()];
        for (int t : types) counts[t]++;
        int width = featureWidth(d);
        float[][] features = new float[numTypes()][];
        int[] row = new int[numTypes()];
        for (int t = 0; t < counts.length; t++) features[t] = new float[counts[t] * width];
        for (int k = 0; k < scopes.size(); k++) {
            int t = types.get(k);
            int[] ed = edges.get(k);
            for (int q = 0; q < ed.length; q++) {
                for (int f = 0; f < d; f++) features[t][row[t] * width + q * d + f] = ex.pairwise(ed[q], f);
            }
            row[t]++;
        }
        FactorGraph withRegions;
        try {
            withRegions = graph.withRegions(scopes.toArray(new int[0][]), types.stream().mapToInt(Integer::intValue).toArray(), typeNames);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(ex.name() + ": --regions " + label + ": " + e.getMessage());
        }
        return new Regions(withRegions, features, counts);
    }

    private int edge(Example ex, int[] from, int i, int j) {
        if (from[i] < 0) {
            throw new BadInputException(ex.name() + ": --regions " + label + " needs the 4-connected grid of the image, but pixels "
                    + i + " and " + j + " share no edge");
        }
        return from[i];
    }
}
