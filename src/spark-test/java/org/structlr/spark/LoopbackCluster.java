package org.structlr.spark;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A Spark standalone cluster on 127.0.0.1 for tests: a master and {@code workers} one-core
 * workers, each a child JVM started through Spark's own classes
 * ({@code org.apache.spark.deploy.master.Master}, {@code org.apache.spark.deploy.worker.Worker}) on
 * this JVM's classpath. Executors (launched by the workers) get the same classpath and the Java 17
 * flags through the driver properties that {@link #driverProperties()} returns.
 */
final class LoopbackCluster implements AutoCloseable {
    private final Path dir, lineageDir;
    private final int port, uiPort;
    private final Process master;
    private final List<Process> workers = new ArrayList<>();

    LoopbackCluster(Path dir, int workers) throws IOException, InterruptedException {
        this.dir = dir;
        this.lineageDir = Files.createDirectories(dir.resolve("lineage"));
        this.port = freePort();
        this.uiPort = freePort();
        master = start("master", "org.apache.spark.deploy.master.Master",
                "--host", "127.0.0.1", "--port", String.valueOf(port), "--webui-port", String.valueOf(uiPort));
        for (int w = 0; w < workers; w++) {
            Path work = Files.createDirectories(dir.resolve("worker-" + w));
            this.workers.add(start("worker-" + w, "org.apache.spark.deploy.worker.Worker",
                    "--host", "127.0.0.1", "--cores", "1", "--memory", "2g", "--webui-port", String.valueOf(freePort()),
                    "--work-dir", work.toString(), url()));
        }
        awaitWorkers(workers, Duration.ofSeconds(90));
    }

    String url() {
        return "spark://127.0.0.1:" + port;
    }

    /**
     * Driver settings for this cluster: loopback addresses, executors with this classpath, flags and
     * one OpenMP thread; a lineage cut after every iteration, its states in a folder every JVM here
     * reaches (what HDFS is to a real cluster), so the fault tests recompute through those files.
     */
    Map<String, String> driverProperties() {
        return Map.of(
                "spark.structlr.cutEvery", "1",
                SparkTraining.LINEAGE_DIR, lineageDir.toUri().toString(),
                "spark.driver.host", "127.0.0.1",
                "spark.driver.bindAddress", "127.0.0.1",
                "spark.ui.enabled", "false",
                "spark.executor.memory", "1g",
                "spark.executor.cores", "1",
                "spark.executor.extraClassPath", System.getProperty("java.class.path"),
                "spark.executor.extraJavaOptions", String.join(" ", jvmFlags()),
                "spark.executorEnv.OMP_NUM_THREADS", "1");
    }

    /** Kills worker {@code w} and so its executor (SIGKILL: no shutdown hooks; the executor follows its worker). */
    void killWorker(int w) {
        workers.get(w).destroyForcibly();
    }

    /** The module flags Spark 3.5 needs on Java 17, and the Vector API module, as given to this JVM. */
    static List<String> jvmFlags() {
        List<String> flags = new ArrayList<>();
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens") || a.startsWith("--add-exports")) flags.add(a);
        }
        flags.add("--add-modules=jdk.incubator.vector");
        return flags;
    }

    private Process start(String name, String mainClass, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags());
        cmd.add("-Xmx512m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
        // no Spark distribution here: the worker's executor classpath is spark.executor.extraClassPath alone
        pb.environment().put("SPARK_HOME", dir.toString());
        pb.environment().put("SPARK_TESTING", "1");
        pb.environment().put("SPARK_SCALA_VERSION", "2.12");
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        return pb.start();
    }

    private void awaitWorkers(int count, Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long end = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        while (System.nanoTime() < end) {
            if (!master.isAlive()) throw new IOException("the Spark master exited; see " + dir.resolve("master.log"));
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + uiPort + "/json/")).build(),
                        HttpResponse.BodyHandlers.ofString());
                JsonNode n = new ObjectMapper().readTree(r.body());
                int alive = n.path("aliveworkers").asInt(0);
                last = alive + " workers alive";
                if (alive >= count) return;
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        throw new IOException("the loopback Spark cluster did not come up (" + last + "); logs in " + dir);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The end of a child's log, for failure messages. */
    String log(String name) {
        try (InputStream in = Files.newInputStream(dir.resolve(name + ".log"))) {
            String s = new String(in.readAllBytes());
            return s.substring(Math.max(0, s.length() - 3000));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        for (Process w : workers) w.destroyForcibly();
        master.destroyForcibly();
        for (Process w : workers) waitQuietly(w);
        waitQuietly(master);
    }

    private static void waitQuietly(Process p) {
        try {
            p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
