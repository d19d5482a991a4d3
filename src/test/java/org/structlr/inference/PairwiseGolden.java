package org.structlr.inference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.Coloring;
import org.structlr.graph.FactorGraph;
import org.structlr.graph.GridBatch;
import org.structlr.inference.fused.FusedGridMessagePassing;
import org.structlr.inference.loop.LoopMessagePassing;
import org.structlr.inference.nd4j.GraphMessagePassing;
import org.structlr.inference.nd4j.GridMessagePassing;

/**
 * The numbers of every engine on two seeded pairwise models (a loopy graph with hard zeros, a
 * frustrated grid): dual and primal after 0, 1, 3, 10 and 30 sweeps, a weighted sum of the unary
 * beliefs and the decoded labels after 30, and the rounding decoder's energy. Written with the code
 * of main before regions existed ({@code src/test/resources/golden/pairwise-engines.txt}: the
 * commit it came from heads that file) and compared by {@code PairwiseNumbersUnchangedTest}. To
 * regenerate after a deliberate change: run {@link #main} with the test classpath.
 */
public final class PairwiseGolden {
    private PairwiseGolden() {}

    static final int[] CHECKPOINTS = {0, 1, 3, 10, 30};

    public static void main(String[] args) {
        for (String l : lines()) System.out.println(l);
    }

    static List<String> lines() {
        Locale.setDefault(Locale.ROOT);
        List<String> out = new ArrayList<>();
        RandomPairwiseModels.Model general = RandomPairwiseModels.hardConstrained(7, 40, 3, 0.15, 0.1);
        RandomPairwiseModels.Model grid = RandomPairwiseModels.ising(11, 9, 13, 0.2);
        double eps = 0.1;
        FactorGraph g = general.graph(), h = grid.graph();
        run(out, "general loop", () -> new LoopMessagePassing(g, Coloring.greedy(g), eps), general);
        run(out, "general nd4j-graph", () -> new GraphMessagePassing(g, Coloring.greedy(g), eps, DataType.DOUBLE), general);
        Coloring board = Coloring.checkerboard(9, 13, 1);
        run(out, "grid loop", () -> new LoopMessagePassing(h, board, eps), grid);
        run(out, "grid nd4j-graph", () -> new GraphMessagePassing(h, board, eps, DataType.DOUBLE), grid);
        run(out, "grid nd4j-grid", () -> new GridMessagePassing(1, 9, 13, 2, eps, DataType.DOUBLE), grid);
        run(out, "grid fused", () -> new FusedGridMessagePassing(h, GridBatch.uniform(1, 9, 13), eps, 1), grid);
        try (MessagePassing mp = new LoopMessagePassing(g, Coloring.greedy(g), eps)) {
            set(mp, general);
            MapDecoder.Result r = new MapDecoder(MapDecoder.Kind.round, general.energy()).run(mp, new StopRule(100, 0, 10));
            out.add(String.format("general round energy %.17g labels %s", r.energy(), Arrays.toString(r.labels()).replace(" ", "")));
        }
        return out;
    }

    private static void set(MessagePassing mp, RandomPairwiseModels.Model m) {
        FactorGraph g = m.graph();
        int L = g.maxLabels();
        mp.setPotentials(Nd4j.create(m.unary(), new long[] {g.numVariables(), L}, DataType.DOUBLE).castTo(DataType.DOUBLE),
                Nd4j.create(m.pairwise(), new long[] {g.numEdges(), (long) L * L}, DataType.DOUBLE));
    }

    private static void run(List<String> out, String name, Supplier<MessagePassing> engine, RandomPairwiseModels.Model m) {
        try (MessagePassing mp = engine.get()) {
            set(mp, m);
            int done = 0;
            for (int c : CHECKPOINTS) {
                mp.iterate(c - done);
                done = c;
                out.add(String.format("%s sweeps %d dual %.17g primal %.17g", name, c, mp.dual(), mp.primal()));
            }
            INDArray b = mp.unaryBeliefs().castTo(DataType.DOUBLE);
            double s = 0;
            double[] flat = b.dup('c').data().asDouble();
            for (int k = 0; k < flat.length; k++) s += flat[k] * ((k % 7) + 1);
            out.add(String.format("%s beliefs %.17g labels %s", name, s, Arrays.toString(mp.decode()).replace(" ", "")));
        }
    }
}
