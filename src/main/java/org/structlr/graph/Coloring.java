package org.structlr.graph;

import java.util.Arrays;

/**
 * A proper colouring of a factor graph's variables: no factor (edge or region) holds two variables
 * of one colour, so all star updates of one colour can run at once and give exactly the sequential
 * result (a star update at i reads the messages into the other variables of i's factors).
 */
public final class Coloring {
    private final int[] color;
    private final int numColors;

    public Coloring(int[] color) {
        this.color = color.clone();
        int m = -1;
        for (int c : color) {
            if (c < 0) throw new IllegalArgumentException("negative colour " + c);
            m = Math.max(m, c);
        }
        this.numColors = m + 1;
    }

    public int color(int v) { return color[v]; }
    public int numColors() { return numColors; }
    public int[] colors() { return color.clone(); }

    /** Throws unless no edge or region of {@code g} holds two variables of one colour. */
    public Coloring checkProper(FactorGraph g) {
        if (color.length != g.numVariables()) {
            throw new IllegalArgumentException("colouring has " + color.length + " entries for " + g.numVariables() + " variables");
        }
        for (int e = 0; e < g.numEdges(); e++) {
            if (color[g.edgeFrom(e)] == color[g.edgeTo(e)]) {
                throw new IllegalArgumentException("edge " + e + " joins two variables of colour " + color[g.edgeFrom(e)]);
            }
        }
        for (int r = 0; r < g.numRegions(); r++) {
            for (int p = 0; p < g.regionSize(r); p++) {
                for (int q = 0; q < p; q++) {
                    if (color[g.regionVariable(r, p)] == color[g.regionVariable(r, q)]) {
                        throw new IllegalArgumentException("region " + r + " holds two variables of colour " + color[g.regionVariable(r, p)]);
                    }
                }
            }
        }
        return this;
    }

    /**
     * Two colours when the graph is bipartite (grids, trees: found by breadth-first search), else
     * {@link #greedy}. Fewer colours mean fewer, larger batched updates. A region of 3 or more
     * variables is a clique of the conflict graph, so a graph with one is never bipartite.
     */
    public static Coloring of(FactorGraph g) {
        int n = g.numVariables();
        int[][] nb = g.neighbours();
        int[] off = nb[0], adj = nb[1];
        int[] color = new int[n];
        Arrays.fill(color, -1);
        int[] queue = new int[n];
        for (int s = 0; s < n; s++) {
            if (color[s] >= 0) continue;
            color[s] = 0;
            int head = 0, tail = 0;
            queue[tail++] = s;
            while (head < tail) {
                int v = queue[head++];
                for (int k = off[v]; k < off[v + 1]; k++) {
                    int u = adj[k];
                    if (color[u] < 0) {
                        color[u] = 1 - color[v];
                        queue[tail++] = u;
                    } else if (color[u] == color[v]) {
                        return greedy(g);
                    }
                }
            }
        }
        return new Coloring(color);
    }

    /**
     * Greedy colouring, variables taken by decreasing degree (Welsh-Powell): at most max degree + 1
     * colours, usually far fewer. The degree counts neighbours through edges and regions.
     */
    public static Coloring greedy(FactorGraph g) {
        int n = g.numVariables();
        int[][] nb = g.neighbours();
        int[] off = nb[0], adj = nb[1];
        int[] deg = new int[n];
        for (int v = 0; v < n; v++) deg[v] = off[v + 1] - off[v];
        Integer[] order = new Integer[n];
        for (int v = 0; v < n; v++) order[v] = v;
        Arrays.sort(order, (a, b) -> deg[b] != deg[a] ? Integer.compare(deg[b], deg[a]) : Integer.compare(a, b));
        int[] color = new int[n];
        Arrays.fill(color, -1);
        int maxDeg = 0;
        for (int d : deg) maxDeg = Math.max(maxDeg, d);
        int[] usedBy = new int[Math.max(n, maxDeg) + 1];
        Arrays.fill(usedBy, -1);
        for (int v : order) {
            for (int k = off[v]; k < off[v + 1]; k++) {
                int u = adj[k];
                if (color[u] >= 0) usedBy[color[u]] = v;
            }
            int c = 0;
            while (usedBy[c] == v) c++;
            color[v] = c;
        }
        return new Coloring(color);
    }

    /** Colour by {@code (row + col) % 2} for row-major grids stacked one after another. */
    public static Coloring checkerboard(int height, int width, int count) {
        int[] color = new int[height * width * count];
        for (int k = 0; k < count; k++) {
            for (int r = 0; r < height; r++) {
                for (int c = 0; c < width; c++) color[(k * height + r) * width + c] = (r + c) & 1;
            }
        }
        return new Coloring(color);
    }
}
