package org.structlr.inference;

import org.structlr.inference.engines.Engines;
import org.structlr.inference.nd4j.GridMessagePassing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.features.HorseLoader;
import org.structlr.features.WorkingSize;
import org.structlr.graph.GridBatch;

/**
 * Not a test: the cost of ragged batches on the horses' own shapes. Prints the padding of the
 * ND4J grid layout (rows over one common width) against a plane padded to the largest height and
 * width, and star updates per second (real pixels) of the ragged grid engine, the graph engine on
 * the same batch, and a uniform batch. Run with
 * {@code java -cp target/classes:target/test-classes:$(cat cp.txt) org.structlr.inference.RaggedSpeedCheck DB LONGEST [sweeps]}.
 */
public final class RaggedSpeedCheck {
    private RaggedSpeedCheck() {}

    public static void main(String[] args) throws IOException {
        Path db = Path.of(args.length > 0 ? args[0] : "../shared/data/weizmann_horse_db");
        int longest = args.length > 1 ? Integer.parseInt(args[1]) : 96;
        int sweeps = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        WorkingSize size = new WorkingSize.Longest(longest);
        List<int[]> shapes = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(db.resolve("rgb"))) {
            files = s.filter(p -> HorseLoader.number(p) >= 0 && HorseLoader.isTrain(HorseLoader.number(p))).sorted().toList();
        }
        for (Path f : files) {
            int[] hw = sourceSize(f);
            shapes.add(size.shapeOf(hw[0], hw[1]));
        }
        GridBatch batch = GridBatch.of(shapes);
        long pixels = batch.numVariables();
        int maxH = 0, maxW = 0;
        for (int[] s : shapes) {
            maxH = Math.max(maxH, s[0]);
            maxW = Math.max(maxW, s[1]);
        }
        double padded = (double) shapes.size() * 4 * ((maxH + 1) / 2) * ((maxW + 1) / 2) / pixels;
        System.out.printf("%d training images at longest side %d: %d pixels (%.0f per image; 36x48 = 1728)%n", shapes.size(), longest, pixels,
                (double) pixels / shapes.size());
        System.out.printf("plane positions / pixels: rows over a common width %.3f, every image padded to %dx%d %.3f%n",
                GridMessagePassing.paddingFactor(batch), maxH, maxW, padded);

        for (int labels : new int[] {2}) {
            time("ND4J grid, ragged", new GridMessagePassing(batch, labels, 0.1, DataType.FLOAT), sweeps);
            GridMessagePassing g = new GridMessagePassing(batch, labels, 0.1, DataType.FLOAT);
            time("ND4J graph, same batch", Engines.create(g.graph(), 0.1, DataType.FLOAT), Math.max(2, sweeps / 3));
            int side = (int) Math.round(Math.sqrt((double) pixels / shapes.size()));
            time("ND4J grid, uniform " + shapes.size() + "x" + side + "x" + side, new GridMessagePassing(shapes.size(), side, side, labels, 0.1, DataType.FLOAT), sweeps);
        }
    }

    static int[] sourceSize(Path f) throws IOException {
        try (ImageInputStream in = ImageIO.createImageInputStream(f.toFile())) {
            Iterator<ImageReader> it = ImageIO.getImageReaders(in);
            ImageReader r = it.next();
            r.setInput(in);
            int[] hw = {r.getHeight(0), r.getWidth(0)};
            r.dispose();
            return hw;
        }
    }

    static void time(String name, MessagePassing mp, int sweeps) {
        int nv = mp.graph().numVariables(), ne = mp.graph().numEdges(), L = mp.graph().maxLabels();
        INDArray un = Nd4j.rand(DataType.FLOAT, nv, L).subi(0.5);
        INDArray pw = Nd4j.rand(DataType.FLOAT, ne, L * L).muli(0.3);
        mp.setPotentials(un, pw);
        mp.iterate(2);
        double[] ms = new double[5];
        for (int b = 0; b < ms.length; b++) {
            long t0 = System.nanoTime();
            mp.iterate(sweeps);
            ms[b] = (System.nanoTime() - t0) / 1e6 / sweeps;
        }
        java.util.Arrays.sort(ms);
        System.out.printf("  %-34s L=%d: %8.2f ms/sweep best, %8.2f median -> %.2f M pixel updates/s (best)%n", name, L, ms[0], ms[2], nv / ms[0] / 1e3);
        mp.close();
    }
}
