package org.structlr.inference.engines;

import java.util.Locale;

/**
 * Which inference engine a command runs ({@code --engine}): {@code auto} lets {@link Engines} pick
 * the fastest for the graph and backend; the others name an engine family, which must be able to
 * run the graph ({@link Engines#create} refuses it with one error otherwise).
 */
public enum EngineChoice {
    /** {@link Engines}' choice: fused for images on the CPU, the loop for small graphs, else ND4J. */
    AUTO,
    /** The fused Vector API engine: images (grids) only, needs {@code --add-modules jdk.incubator.vector}. */
    FUSED,
    /** The ND4J engines (the CUDA path): the grid engine for images, the graph engine for any graph. */
    ND4J,
    /** The plain Java loop engine, any graph. */
    LOOP;

    /** The lower-case name used on the command line and in model.json. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The choice named {@code s} (any case); one error listing the names otherwise. */
    public static EngineChoice parse(String s) {
        if (s != null) {
            for (EngineChoice c : values()) if (c.label().equalsIgnoreCase(s.trim())) return c;
        }
        throw new IllegalArgumentException("unknown engine '" + s + "': one of auto, fused, nd4j, loop");
    }

    @Override
    public String toString() {
        return label();
    }
}
