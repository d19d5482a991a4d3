package org.structlr.serve;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.structlr.viz.MemoryFigure;

/**
 * The loopback load client of bench/serve/run.sh (not a test): sends a bounded number of requests
 * to a running {@code structlr serve} and prints one line of results. It stops by itself.
 * <pre>
 *   load URL PATH CONTENT_TYPE CONCURRENCY REQUESTS FILE...   requests/s, p50/p99 latency, errors
 *   soak URL PATH CONTENT_TYPE PID REQUESTS OUT_PREFIX FILE... one client, requests in a row; resident
 *                                                              memory of PID every 100 requests -> .csv and .png
 * </pre>
 * Files are sent round-robin. Only addresses on this machine are meant (the URL is the server's).
 */
public final class LoadBench {
    private LoadBench() {}

    public static void main(String[] args) throws Exception {
        String mode = args[0], url = args[1], path = args[2], type = args[3];
        if (mode.equals("load")) {
            int conc = Integer.parseInt(args[4]), n = Integer.parseInt(args[5]);
            load(url, path, type, conc, n, bodies(Arrays.copyOfRange(args, 6, args.length)));
        } else if (mode.equals("soak")) {
            long pid = Long.parseLong(args[4]);
            int n = Integer.parseInt(args[5]);
            soak(url, path, type, pid, n, Path.of(args[6]), bodies(Arrays.copyOfRange(args, 7, args.length)));
        } else {
            throw new IllegalArgumentException("mode load or soak, got " + mode);
        }
    }

    static List<byte[]> bodies(String[] files) throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (String f : files) out.add(Files.readAllBytes(Path.of(f)));
        return out;
    }

    static void load(String url, String path, String type, int conc, int n, List<byte[]> bodies) throws Exception {
        ServeClient c = new ServeClient(url);
        long[] lat = new long[n];
        AtomicInteger next = new AtomicInteger(), errors = new AtomicInteger();
        AtomicLong firstError = new AtomicLong(-1);
        ExecutorService pool = Executors.newFixedThreadPool(conc);
        List<Future<?>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int t = 0; t < conc; t++) {
            fs.add(pool.submit(() -> {
                for (int k; (k = next.getAndIncrement()) < n; ) {
                    HttpRequest r = c.postRequest(path, type, bodies.get(k % bodies.size()), null);
                    long s = System.nanoTime();
                    ServeClient.Answer a = c.send(r);
                    lat[k] = System.nanoTime() - s;
                    if (a.status() != 200) {
                        errors.incrementAndGet();
                        if (firstError.compareAndSet(-1, k)) System.err.println("error: " + a.status() + " " + a.text());
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : fs) f.get();
        double secs = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        long[] sorted = lat.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "concurrency %d: %d requests in %.2f s, %.1f requests/s, p50 %.1f ms, p99 %.1f ms, errors %d%n",
                conc, n, secs, n / secs, sorted[n / 2] / 1e6, sorted[Math.min(n - 1, (int) Math.ceil(n * 0.99) - 1)] / 1e6, errors.get());
    }

    static void soak(String url, String path, String type, long pid, int n, Path out, List<byte[]> bodies) throws Exception {
        ServeClient c = new ServeClient(url);
        List<double[]> rows = new ArrayList<>();
        int errors = 0;
        long t0 = System.nanoTime();
        rows.add(new double[] {0, rssMiB(pid)});
        for (int k = 0; k < n; k++) {
            ServeClient.Answer a = c.send(c.postRequest(path, type, bodies.get(k % bodies.size()), null));
            if (a.status() != 200) {
                if (errors++ == 0) System.err.println("error: " + a.status() + " " + a.text());
            }
            if ((k + 1) % 100 == 0) rows.add(new double[] {k + 1, rssMiB(pid)});
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        StringBuilder csv = new StringBuilder("requests,rss_mib\n");
        for (double[] r : rows) csv.append(String.format(Locale.ROOT, "%d,%.1f%n", (long) r[0], r[1]));
        Files.writeString(Path.of(out + ".csv"), csv);
        double[] x = rows.stream().mapToDouble(r -> r[0]).toArray(), y = rows.stream().mapToDouble(r -> r[1]).toArray();
        MemoryFigure.write(Path.of(out + ".png"), "serve: resident memory over " + n + " requests in a row", x, y);
        int tenth = Math.max(1, rows.size() / 10);
        double early = Arrays.stream(y, 1, Math.min(y.length, 1 + tenth)).max().orElse(0), late = Arrays.stream(y, y.length - tenth, y.length).max().orElse(0);
        System.out.printf(Locale.ROOT, "soak: %d requests in %.1f s, errors %d, resident %.0f MiB at start, max %.0f MiB in the first tenth, max %.0f MiB in the last tenth%n",
                n, secs, errors, y[0], early, late);
    }

    /** VmRSS of a process from /proc (Linux), in MiB. */
    static double rssMiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
        throw new IOException("no VmRSS for process " + pid);
    }
}
