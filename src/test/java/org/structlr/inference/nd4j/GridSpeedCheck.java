package org.structlr.inference.nd4j;

import org.structlr.inference.SweepProfile;

import java.util.Random;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Not a test: prints star-updates per second of {@link GridMessagePassing} (float, after warm-up)
 * and where the time of a sweep goes. Run with
 * {@code java -cp target/classes:target/test-classes:$(cat cp.txt) org.structlr.inference.nd4j.GridSpeedCheck [sweeps]}.
 */
public final class GridSpeedCheck {
    private GridSpeedCheck() {}

    public static void main(String[] args) {
        int sweeps = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        System.out.println("ND4J backend " + Nd4j.getBackend().getClass().getSimpleName()
                + ", OpenMP threads " + Nd4j.getEnvironment().maxMasterThreads());
        check(16, 100, 100, 2, sweeps);
        check(4, 256, 256, 5, Math.max(5, sweeps / 5));
    }

    static void check(int count, int h, int w, int l, int sweeps) {
        Random rnd = new Random(1);
        try (GridMessagePassing mp = new GridMessagePassing(count, h, w, l, 0.1, DataType.FLOAT)) {
            int nv = mp.graph().numVariables(), ne = mp.graph().numEdges();
            INDArray un = Nd4j.rand(DataType.FLOAT, nv, l).subi(0.5);
            INDArray pw = Nd4j.rand(DataType.FLOAT, ne, l * l).muli(0.3);
            mp.setPotentials(un, pw);
            mp.iterate(Math.max(3, sweeps / 5)); // warm-up
            // the machine is shared: time several blocks and report the best and the median
            int blocks = 7;
            double[] ms = new double[blocks];
            for (int b = 0; b < blocks; b++) {
                long t0 = System.nanoTime();
                mp.iterate(sweeps);
                ms[b] = (System.nanoTime() - t0) / 1e6 / sweeps;
            }
            java.util.Arrays.sort(ms);
            System.out.printf("%dx%dx%d L=%d float: %.2f ms per sweep best (%.2f M star-updates/s), %.2f ms median (%.2f M/s)%n",
                    count, h, w, l, ms[0], nv / ms[0] / 1e3, ms[blocks / 2], nv / ms[blocks / 2] / 1e3);
            mp.profile().on = true;
            mp.profile().reset();
            mp.iterate(sweeps);
            String[] names = SweepProfile.PHASES;
            for (int i = 0; i < names.length; i++) {
                System.out.printf("   %-24s %7.2f ms/sweep%n", names[i], mp.profile().nanos[i] / 1e6 / sweeps);
            }
            long d0 = System.nanoTime();
            double dual = mp.dual();
            long d1 = System.nanoTime();
            double primal = mp.primal();
            long d2 = System.nanoTime();
            System.out.printf("   dual %.4f (%.1f ms), primal %.4f (%.1f ms)%n", dual, (d1 - d0) / 1e6, primal, (d2 - d1) / 1e6);
        }
    }
}
