package org.structlr.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import org.structlr.learn.LearnListener;
import org.structlr.learn.LearnSettings;
import org.structlr.learn.Training;
import org.structlr.model.CrfModel;
import org.structlr.model.ExampleBatch;
import org.structlr.model.ModelExport;
import org.structlr.model.Predictor;

/**
 * The README's Java program, exactly as written there, compiled with the JDK's compiler against
 * the test class path and run; its printed numbers must equal those of the same training and
 * prediction through the internal classes.
 */
class QuickstartProgramTest {
    static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    /** The first ```java block with {@code class Quickstart}: README.md, else the README text waiting in docs/wave2. */
    static String program() throws Exception {
        for (Path doc : List.of(Path.of("README.md"), Path.of("docs/wave2/registry.md"))) {
            if (!Files.isRegularFile(doc)) continue;
            Matcher m = BLOCK.matcher(Files.readString(doc));
            while (m.find()) if (m.group(1).contains("public class Quickstart")) return m.group(1);
        }
        throw new AssertionError("no ```java block with 'public class Quickstart' in README.md or docs/wave2/registry.md");
    }

    @Test
    void theReadmeProgramCompilesRunsAndPrintsWhatTheLibraryComputes(@TempDir Path tmp) throws Exception {
        Dataset data = new DenoisingGenerator().generate(2, 2, 12, 12, 3);
        Path dataDir = tmp.resolve("data"), model = tmp.resolve("model");
        data.write(dataDir);

        Path src = tmp.resolve("src/Quickstart.java"), classes = tmp.resolve("classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.writeString(src, program());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the tests run on a JDK");
        StringWriter diagnostics = new StringWriter();
        boolean ok = javac.getTask(diagnostics, null, null,
                List.of("-classpath", System.getProperty("java.class.path"), "-d", classes.toString()),
                null, javac.getStandardFileManager(null, null, null).getJavaFileObjects(src.toFile())).call();
        assertTrue(ok, "the README program does not compile:\n" + diagnostics);

        String out;
        PrintStream saved = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[]{classes.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("Quickstart").getMethod("main", String[].class);
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[]{dataDir.toString(), model.toString()});
        } finally {
            System.setOut(saved);
        }
        out = buf.toString(StandardCharsets.UTF_8);

        // The same work through the internal classes: the trainer's defaults, 10 iterations.
        CrfModel m = Training.train(data, "linear", "linear", new LearnSettings(10, 0.1, 25, 50, 1), 1, LearnListener.NONE).model();
        ExampleBatch test = new ExampleBatch(data.test(), m.numLabels(), m.pairTypes());
        Predictor.Prediction p = Predictor.predict(m, test, Predictor.defaultStop(test, 500, 1e-5));
        List<String> want = new ArrayList<>();
        for (int k = 0; k < data.test().size(); k++) {
            int from = test.variableOffset(k), n = data.test().get(k).numVariables(), wrong = 0;
            int[] truth = data.test().get(k).labels();
            for (int v = 0; v < n; v++) if (p.labels()[from + v] != truth[v]) wrong++;
            want.add(String.format(Locale.ROOT, "%d variables, error %.4f, P(y_0 = 1) %.4f", n, (double) wrong / n,
                    p.marginals().getDouble(from, 1)));
        }
        assertEquals(String.join("\n", want), out.strip().replace("\r", ""));
        assertTrue(Files.isRegularFile(model.resolve(CrfModel.MANIFEST)));
        assertEquals(ModelExport.FORMAT, ModelExport.readManifest(Path.of(model + "-export")).path("format").asText());
    }
}
