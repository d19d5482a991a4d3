package org.structlr.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.cli.Main;
import org.structlr.data.DenoisingGenerator;
import org.structlr.data.ExampleIO;
import org.structlr.model.CrfModel;

/**
 * Data and models on a Hadoop file system path: {@link HadoopFiles} on {@code file://} URIs (the
 * Hadoop API itself), and the CLI on a remote scheme ({@code testfs://}, {@link LoopbackFileSystem}):
 * train --spark reads its data from it and writes the model there only when training succeeded;
 * predict --spark's executors read and write their own files there; a missing path and an
 * unreachable hdfs:// name node are one error naming the URI, exit 2, no model.
 */
class SparkHadoopPathsTest {
    @TempDir
    Path tmp;

    @BeforeAll
    static void register() {
        System.setProperty("spark.hadoop.fs.testfs.impl", LoopbackFileSystem.class.getName());
        System.setProperty("spark.hadoop.fs.testfs.impl.disable.cache", "true");
        System.setProperty("spark.hadoop.ipc.client.connect.max.retries", "0");
    }

    @AfterAll
    static void unregister() {
        System.clearProperty("spark.hadoop.fs.testfs.impl");
        System.clearProperty("spark.hadoop.fs.testfs.impl.disable.cache");
        System.clearProperty("spark.hadoop.ipc.client.connect.max.retries");
    }

    record Run(int code, String err) {}

    static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(code, err.toString());
    }

    static String uri(String scheme, Path p) {
        return scheme + "://" + p.toAbsolutePath();
    }

    static List<Path> files(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).map(root::relativize).sorted().toList();
        }
    }

    @Test
    void hadoopFilesCopiesFoldersInAndPublishesWhole() throws IOException {
        Path src = tmp.resolve("src");
        new DenoisingGenerator().generateTo(src, 2, 1, 6, 6, 3);
        HadoopFiles h = new HadoopFiles();
        assertTrue(h.exists(uri("file", src)));
        assertFalse(h.exists(uri("file", tmp.resolve("nothing"))));
        Path in = tmp.resolve("in");
        h.fetch(uri("file", src), in);
        assertEquals(files(src), files(in), "the same files, no .crc beside them");
        for (Path f : files(src)) assertArrayEquals(Files.readAllBytes(src.resolve(f)), Files.readAllBytes(in.resolve(f)), f.toString());
        assertThrows(IOException.class, () -> h.fetch(uri("file", tmp.resolve("nothing")), tmp.resolve("x")));

        // publish over an existing folder: the new content replaces the old whole, nothing temporary left
        Path dst = tmp.resolve("dst");
        Files.createDirectories(dst.resolve("old"));
        Files.writeString(dst.resolve("old/stale.txt"), "stale");
        h.publish(in, uri("file", dst));
        assertEquals(files(src), files(dst));
        try (Stream<Path> s = Files.list(tmp)) {
            assertEquals(List.of("dst", "in", "src"), s.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void trainAndPredictOnSparkWithARemoteFileSystem() throws IOException {
        Path data = tmp.resolve("data"), models = Files.createDirectories(tmp.resolve("models"));
        new DenoisingGenerator().generateTo(data, 3, 3, 12, 12, 5);
        Run t = run("train", "--spark", "local[2]", "--data", uri("testfs", data), "--unary", "const", "--pairwise", "zero",
                "--iterations", "2", "--sweeps", "5", "--eval-sweeps", "5", "--output", uri("testfs", models.resolve("m")), "--quiet");
        assertEquals(Main.EXIT_OK, t.code(), t.err());
        CrfModel m = CrfModel.load(models.resolve("m"));
        assertEquals(2, m.numLabels());
        try (Stream<Path> s = Files.list(models)) {
            assertEquals(List.of("m"), s.map(p -> p.getFileName().toString()).toList(), "only the model, nothing temporary");
        }

        // predict: one machine on local paths, Spark with the model, inputs and outputs on testfs://
        Path in = Files.createDirectories(tmp.resolve("in"));
        var examples = ExampleIO.readDataset(data).test();
        for (int k = 0; k < examples.size(); k++) ExampleIO.write(in.resolve("e" + k + ".npz"), examples.get(k));
        Run p1 = run("predict", "--model", models.resolve("m").toString(), "--input", in.toString(), "--output", tmp.resolve("one").toString(), "--quiet");
        assertEquals(Main.EXIT_OK, p1.code(), p1.err());
        Run p2 = run("predict", "--spark", "local[2]", "--model", uri("testfs", models.resolve("m")), "--input", uri("testfs", in),
                "--output", uri("testfs", tmp.resolve("spark")), "--quiet");
        assertEquals(Main.EXIT_OK, p2.code(), p2.err());
        assertEquals(files(tmp.resolve("one")), files(tmp.resolve("spark")));
        for (Path f : files(tmp.resolve("one"))) {
            assertEquals(org.structlr.data.Npz.read(tmp.resolve("one").resolve(f)), org.structlr.data.Npz.read(tmp.resolve("spark").resolve(f)), f.toString());
        }
    }

    @Test
    void missingRemoteDataAndUnreachableNameNodeAreOneErrorAndNoModel() throws IOException {
        Path models = Files.createDirectories(tmp.resolve("models"));
        String missing = uri("testfs", tmp.resolve("no-such-data"));
        Run r = run("train", "--spark", "local[2]", "--data", missing, "--iterations", "1", "--output", uri("testfs", models.resolve("m")), "--quiet");
        assertEquals(Main.EXIT_USAGE, r.code(), r.err());
        assertTrue(r.err().startsWith("error: " + missing), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertEquals(0, files(models).size(), "no model");

        String hdfs = "hdfs://127.0.0.1:1/denoise";
        Run h = run("train", "--spark", "local[2]", "--data", hdfs, "--iterations", "1", "--output", uri("testfs", models.resolve("m")), "--quiet");
        assertEquals(Main.EXIT_USAGE, h.code(), h.err());
        assertTrue(h.err().startsWith("error: ") && h.err().contains(hdfs + ": cannot read"), h.err());
        assertEquals(0, files(models).size(), "no model");
    }
}
