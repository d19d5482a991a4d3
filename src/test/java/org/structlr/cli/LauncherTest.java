package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.DenoisingGenerator;

/**
 * bin/structlr run as a user runs it, as a process: copied into a distribution's layout
 * (bin/structlr, lib/structlr.jar) and a checkout's (bin/structlr, target/structlr.jar). The jar is
 * a manifest-only jar naming this build's classes and dependencies (the shaded jar exists only after
 * `package`). A function class of a user's own is the test sources' GdLinearClass, compiled into a
 * jar of its own with its services file; the test classes stay off the launched class path.
 */
class LauncherTest {
    static final Path LAUNCHER = Path.of("bin", "structlr");

    @TempDir
    static Path dir;
    static Path dist;
    static Path checkout;
    static Path userJar;
    static Path data;

    @BeforeAll
    static void layouts() throws IOException {
        List<Path> main = mainClassPath();
        dist = dir.resolve("dist");
        install(dist);
        manifestJar(dist.resolve("lib").resolve("structlr.jar"), main);
        checkout = dir.resolve("checkout");
        install(checkout);
        manifestJar(checkout.resolve("target").resolve("structlr.jar"), main);
        userJar = userClassJar(dir.resolve("user"), main);
        data = dir.resolve("data");
        new DenoisingGenerator().generateTo(data, 2, 1, 6, 6, 3);
    }

    record Run(int code, String out, String err) {
        /** stderr without the JVM's notice that an incubator module is in use (printed on every start). */
        String errors() {
            return err.lines().filter(l -> !l.startsWith("WARNING: Using incubator modules")).reduce("", (a, b) -> a + b + "\n");
        }
    }

    static Run run(Path launcher, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        for (String k : List.of("JAVA_OPTS", "STRUCTLR_OPTS", "STRUCTLR_CLASSPATH", "STRUCTLR_JAR", "JAVA_TOOL_OPTIONS")) {
            pb.environment().remove(k);
        }
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.environment().putAll(env);
        Path out = Files.createTempFile("structlr-launcher", ".out"), err = Files.createTempFile("structlr-launcher", ".err");
        try {
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("structlr " + String.join(" ", args) + " did not finish in 10 minutes");
            }
            return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    static Run run(Path launcher, String... args) throws Exception {
        return run(launcher, Map.of(), args);
    }

    static Path launcher(Path root) {
        return root.resolve("bin").resolve("structlr");
    }

    @Test
    void aUsersClassJarOnTheClassPathIsListedAndTrains() throws Exception {
        Run without = run(launcher(dist), "classes");
        assertEquals(0, without.code(), without.err());
        assertTrue(without.out().contains("linear: "), without.out());
        assertFalse(without.out().contains("gd-linear"), without.out());

        Run option = run(launcher(dist), "--classpath", userJar.toString(), "classes");
        assertEquals(0, option.code(), option.err());
        assertTrue(option.out().contains("gd-linear: linear, plain gradient descent"), option.out());
        assertTrue(option.out().contains("steps"), "its options are listed: " + option.out());

        Run env = run(launcher(dist), Map.of("STRUCTLR_CLASSPATH", userJar.toString()), "classes");
        assertEquals(0, env.code(), env.err());
        assertTrue(env.out().contains("gd-linear: "), env.out());

        // an output folder with a space: every argument reaches structlr intact
        Path model = dir.resolve("a model");
        String[] train = {"train", "--data", data.toString(), "--unary", "gd-linear", "--unary-option", "steps=3",
                "--iterations", "2", "--quiet", "--threads", "1", "--output", model.toString()};
        Run refused = run(launcher(dist), train);
        assertEquals(2, refused.code(), refused.err());
        assertTrue(refused.errors().contains("gd-linear"), refused.err());
        assertFalse(Files.exists(model));

        List<String> withJar = new ArrayList<>(List.of("--classpath=" + userJar));
        withJar.addAll(List.of(train));
        Run trained = run(launcher(dist), withJar.toArray(String[]::new));
        assertEquals(0, trained.code(), trained.err());
        String manifest = Files.readString(model.resolve("model.json"));
        assertTrue(manifest.contains("\"gd-linear\""), manifest);
        assertTrue(manifest.contains("\"steps\" : 3") || manifest.contains("\"steps\":3"), manifest);
    }

    @Test
    void theVectorApiIsLoadedWhereAPlainJavaRunLacksIt() throws Exception {
        String[] train = {"train", "--data", data.toString(), "--iterations", "1", "--quiet", "--threads", "1"};
        Run launched = run(launcher(dist), with(train, "--output", dir.resolve("vector-on").toString()));
        assertEquals(0, launched.code(), launched.err());
        assertFalse(launched.err().contains("Vector API is not loaded"), launched.err());

        // the same jar without the launcher's flags: the engine notes the missing module (so the check above can fail)
        List<String> plain = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                dist.resolve("lib").resolve("structlr.jar").toString(), "org.structlr.cli.Main"));
        plain.addAll(List.of(with(train, "--output", dir.resolve("vector-off").toString())));
        Path err = Files.createTempFile(dir, "plain", ".txt");
        ProcessBuilder pb = new ProcessBuilder(plain).redirectErrorStream(true).redirectOutput(err.toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process p = pb.start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES));
        assertTrue(Files.readString(err).contains("Vector API is not loaded"), Files.readString(err));
    }

    @Test
    void javaOptsThenStructlrOptsReachTheJvm() throws Exception {
        // -XshowSettings:properties makes the JVM print its system properties (to stderr) before main runs
        Run r = run(launcher(dist), Map.of("JAVA_OPTS", "-XshowSettings:properties -Dlauncher.a=java -Dlauncher.b=java",
                "STRUCTLR_OPTS", "-Dlauncher.b=structlr"), "classes");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("launcher.a = java"), r.err());
        assertTrue(r.err().contains("launcher.b = structlr"), "STRUCTLR_OPTS come after JAVA_OPTS: " + r.err());
    }

    @Test
    void unknownCommandsAndMissingFilesGetOneErrorAndExit2() throws Exception {
        for (String[] line : List.of(new String[] {"foo"}, new String[] {"foo", "--help"}, new String[] {"--stacktrace", "foo", "-h"})) {
            Run r = run(launcher(dist), line);
            assertEquals(2, r.code(), String.join(" ", line) + ": " + r.err());
            assertEquals("", r.out(), "no help printed for " + String.join(" ", line));
            assertTrue(r.errors().startsWith("error: 'foo' is not a structlr command; the commands are: train, "), r.err());
        }
        Run cp = run(launcher(dist), "--classpath", dir.resolve("missing.jar").toString(), "classes");
        assertEquals(2, cp.code(), cp.err());
        assertEquals("structlr: --classpath: " + dir.resolve("missing.jar") + ": no such file or folder\n", cp.err());

        Run spark = run(launcher(dist), "train", "--spark", "local[2]", "--data", data.toString());
        assertEquals(2, spark.code(), spark.err());
        assertTrue(spark.err().startsWith("structlr: --spark needs the Spark distribution"), spark.err());
    }

    @Test
    void aCheckoutRunsTargetsJarAndSaysHowToBuildWhenThereIsNone() throws Exception {
        Run r = run(launcher(checkout), "--help");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("Usage: structlr "), r.out());

        Path empty = dir.resolve("unbuilt");
        install(empty);
        Run none = run(launcher(empty), "demo");
        assertEquals(2, none.code(), none.err());
        assertEquals("structlr: no structlr jar in " + empty.toRealPath() + "/lib or " + empty.toRealPath()
                + "/target; build it first: cd " + empty.toRealPath() + " && mvn -B -q package -DskipTests\n", none.err());

        Run spark = run(launcher(checkout), "train", "--spark", "local[2]");
        assertEquals(2, spark.code(), spark.err());
        assertTrue(spark.err().contains("mvn -B -q -Pspark package -DskipTests"), spark.err());
    }

    /** A Java older than 17 (here a stand-in that only answers -version) is refused with one line naming it. */
    @Test
    void javaOlderThan17IsRefusedByName() throws Exception {
        for (String[] v : new String[][] {{"openjdk version \"11.0.2\" 2019-01-15", "11"}, {"java version \"1.8.0_292\"", "8"}}) {
            Path home = Files.createDirectories(dir.resolve("old-java-" + v[1]).resolve("bin"));
            Path java = home.resolve("java");
            Files.writeString(java, "#!/bin/sh\necho '" + v[0] + "' >&2\nexit 0\n");
            Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
            Run r = run(launcher(dist), Map.of("JAVA_HOME", home.getParent().toString()), "classes");
            assertEquals(2, r.code(), r.err());
            assertEquals("structlr: " + java + " is Java " + v[1] + "; structlr needs Java 17 or newer (set JAVA_HOME)\n", r.err());
        }
    }

    @Test
    void aSymbolicLinkToTheLauncherFindsTheInstallation() throws Exception {
        Path links = Files.createDirectories(dir.resolve("home-bin"));
        Path link = Files.createSymbolicLink(links.resolve("structlr"), launcher(dist));
        Run r = run(link, "classes");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("linear: "), r.out());
    }

    static String[] with(String[] a, String... more) {
        return Stream.concat(Stream.of(a), Stream.of(more)).toArray(String[]::new);
    }

    /** root/bin/structlr: the checked-in launcher, executable. */
    static void install(Path root) throws IOException {
        Path bin = Files.createDirectories(root.resolve("bin"));
        Files.copy(LAUNCHER, bin.resolve("structlr"));
        Files.setPosixFilePermissions(bin.resolve("structlr"), PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** This build's main classes and their dependencies: the test JVM's class path without the test classes. */
    static List<Path> mainClassPath() {
        List<Path> out = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(e);
            if (p.getFileName() != null && p.getFileName().toString().equals("test-classes")) continue;
            out.add(p.toAbsolutePath());
        }
        assertTrue(out.stream().anyMatch(p -> p.endsWith("classes")), "target/classes on " + out);
        return out;
    }

    /** A jar with no classes whose manifest's Class-Path names {@code entries}. */
    static void manifestJar(Path jar, List<Path> entries) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        StringBuilder cp = new StringBuilder();
        for (Path p : entries) cp.append(cp.length() == 0 ? "" : " ").append(p.toUri());
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, cp.toString());
        Files.createDirectories(jar.getParent());
        try (OutputStream o = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(o, m)) {
            j.flush();
        }
    }

    /** The test sources' GdLinearClass compiled against the main classes, in a jar with its services file. */
    static Path userClassJar(Path work, List<Path> mainClassPath) throws IOException {
        Path src = Path.of("src", "test", "java", "org", "structlr", "extension", "GdLinearClass.java");
        Path classes = Files.createDirectories(work.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String cp = String.join(File.pathSeparator, mainClassPath.stream().map(Path::toString).toList());
        int rc = javac.run(null, null, System.err, "-proc:none", "-d", classes.toString(), "-cp", cp, src.toString());
        assertEquals(0, rc, "compiling " + src);
        Path jar = work.resolve("user-classes.jar");
        try (JarOutputStream j = new JarOutputStream(Files.newOutputStream(jar))) {
            j.putNextEntry(new JarEntry("META-INF/services/org.structlr.oracle.FunctionClass"));
            j.write("org.structlr.extension.GdLinearClass\n".getBytes(StandardCharsets.UTF_8));
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    j.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                    j.write(Files.readAllBytes(f));
                }
            }
        }
        return jar;
    }
}
