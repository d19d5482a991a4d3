package org.structlr.inference.fused;

import java.util.Arrays;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.graph.GridBatch;

/**
 * Not a test: star updates per second of {@link FusedGridMessagePassing} alone on one of the bench's
 * grid cases (same potentials as {@code bench}: normal(0, 1), seed 20130101, eps 0.1), without the
 * ND4J engines the full bench also runs. Usage (jar built with {@code package}):
 * {@code java --add-modules jdk.incubator.vector -cp target/structlr.jar:target/test-classes
 * org.structlr.inference.fused.FusedSpeedCheck COUNT H W LABELS THREADS [SECONDS [SWEEPS_PER_CALL]]}.
 * Prints the best and median of 7 timed blocks (the machine is shared) and the dual at the end.
 */
public final class FusedSpeedCheck {
    private FusedSpeedCheck() {}

    public static void main(String[] args) {
        System.setProperty("structlr.fused.timing", "true");   // before SweepPool loads: CPU time per part
        int count = Integer.parseInt(args[0]), h = Integer.parseInt(args[1]), w = Integer.parseInt(args[2]);
        int labels = Integer.parseInt(args[3]), threads = Integer.parseInt(args[4]);
        double seconds = args.length > 5 ? Double.parseDouble(args[5]) : 2;
        int perCall = args.length > 6 ? Integer.parseInt(args[6]) : 1;   // sweeps per iterate call (bench: 1)
        FusedGridMessagePassing mp = new FusedGridMessagePassing(GridBatch.uniform(count, h, w), labels, 0.1, threads);
        int nv = mp.graph().numVariables(), ne = mp.graph().numEdges();
        Nd4j.getRandom().setSeed(20130101L);
        INDArray unary = Nd4j.randn(DataType.FLOAT, nv, labels);
        INDArray pair = Nd4j.randn(DataType.FLOAT, ne, (long) labels * labels);
        mp.setPotentials(unary, pair);
        long w0 = System.nanoTime();
        while (System.nanoTime() - w0 < 2e9) mp.iterate(perCall); // warm-up (C2)
        int blocks = 7;
        double[] rate = new double[blocks], threadCpuRate = new double[blocks];
        java.lang.management.ThreadMXBean tm = java.lang.management.ManagementFactory.getThreadMXBean();
        long total = 0;
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime(), wall0 = System.nanoTime(), parks0 = SweepPool.parks();
        long[] timing0 = SweepPool.timing();
        for (int b = 0; b < blocks; b++) {
            long t0 = System.nanoTime(), k = 0, c0 = tm.getCurrentThreadCpuTime();
            do {
                mp.iterate(perCall);
                k += perCall;
            } while (System.nanoTime() - t0 < seconds / blocks * 1e9);
            total += k;
            rate[b] = k * (double) nv / ((System.nanoTime() - t0) / 1e9);
            threadCpuRate[b] = k * (double) nv / ((tm.getCurrentThreadCpuTime() - c0) / 1e9);
        }
        long[] timing = SweepPool.timing();
        for (int i = 0; i < timing.length; i++) timing[i] -= timing0[i];
        double cpu = (os.getProcessCpuTime() - cpu0) / 1e9, wall = (System.nanoTime() - wall0) / 1e9;
        Arrays.sort(rate);
        Arrays.sort(threadCpuRate);
        System.out.printf("%dx%dx%d L=%d threads=%d, " + perCall + " sweeps per call: best %.2f M/s, median %.2f M/s, mean %.2f M/s, %.2f M per process CPU-second,"
                        + " best %.2f M per CPU-second of the calling thread (%d sweeps), %.3f parks per call, dual %.6f%n",
                count, h, w, labels, threads, rate[blocks - 1] / 1e6, rate[blocks / 2] / 1e6, total * (double) nv / wall / 1e6,
                total * (double) nv / cpu / 1e6, threadCpuRate[blocks - 1] / 1e6, total, (SweepPool.parks() - parks0) / (double) (total / perCall), mp.dual());
        if (timing[0] > 0) {
            System.out.printf("  %d pool jobs of %.3f ms: %.1f%% of their thread time idle at the end (imbalance), hand-off %.1f us per job,"
                            + " %.2f M updates per CPU-second inside the parts%n",
                    timing[0], timing[1] / 1e6 / timing[0] / threads, 100.0 * timing[2] / timing[1], timing[3] / 1e3 / timing[0],
                    total * (double) nv / (timing[4] / 1e9) / 1e6);
        }
    }
}
