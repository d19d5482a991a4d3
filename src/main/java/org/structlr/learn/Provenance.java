package org.structlr.learn;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Properties;
import java.time.Instant;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.data.Dataset;
import org.structlr.data.DatasetSummary;

/**
 * What a model records about how it was made ({@code model.json} "provenance"): the data (its
 * location, sizes, hashes and image recipe), the seed, the time, and the software, read from the
 * class path at run time:
 * structlr's version and git commit ({@code structlr-build.properties}, written at build time by
 * the pom's antrun step), the versions of the libraries actually loaded (each jar's
 * {@code META-INF/maven/<group>/<artifact>/pom.properties}), the ND4J backend in use, and Java.
 */
public final class Provenance {
    /** Build-time resource: git.commit, version. */
    static final String BUILD_FILE = "structlr-build.properties";
    /**
     * Key in the provenance -> Maven coordinates of the jar whose version it records, and a class of
     * that jar: the pom.properties is read from the jar that class was loaded from, since other jars
     * may carry a copy (nd4j's shaded jackson carries jackson-databind's, of another version).
     */
    static final String[][] LIBRARIES = {
            {"nd4j", "org.nd4j", "nd4j-api", "org.nd4j.linalg.factory.Nd4j"},
            {"deeplearning4j", "org.deeplearning4j", "deeplearning4j-nn", "org.deeplearning4j.nn.multilayer.MultiLayerNetwork"},
            {"xgboost4j", "ml.dmlc", "xgboost4j_2.12", "ml.dmlc.xgboost4j.java.XGBoost"},
    };
    /** ND4J backend artifacts, in the order they are looked for. */
    static final String[] BACKENDS = {"nd4j-native", "nd4j-cuda-11.6", "nd4j-cuda-11.4", "nd4j-cuda-11.2"};
    static final String UNKNOWN = "unknown";

    private Provenance() {}

    /** Keys of the data set's {@link Dataset#INFO_FILE} copied into the model as its image recipe. */
    public static final List<String> IMAGE_RECIPE_KEYS = List.of("unary_features", "height", "width", "longest", "own_size", "cell", "patch");

    /** The provenance of a model trained on {@code data} (hashed here) with seed {@code seed}. */
    public static Map<String, Object> of(Dataset data, long seed) {
        return of(data.summary(), data.info(), Map.of(DataHashes.DATA_HASH, DataHashes.dataHash(data)), seed);
    }

    /** The provenance of a model trained on a data set with this summary, info file contents and hashes (in this order). */
    public static Map<String, Object> of(DatasetSummary data, Map<String, Object> info, Map<String, String> hashes, long seed) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("seed", seed);
        p.putAll(hashes);
        if (data.root() != null) p.put("data", data.root());
        p.put("trainExamples", data.trainExamples());
        p.put("grid", data.allImages());
        p.put("testExamples", data.testExamples());
        if (info.containsKey("unary_features")) {
            Map<String, Object> recipe = new LinkedHashMap<>();
            for (String k : IMAGE_RECIPE_KEYS) if (info.containsKey(k)) recipe.put(k, info.get(k));
            p.put("images", recipe); // how predict must featurise new images (PredictCommand)
        }
        p.putAll(software()); // versions on the class path, ND4J backend, git commit
        p.put("created", Instant.now().toString());
        return p;
    }

    /** The software entries of a model's provenance, in a fixed order. */
    public static Map<String, Object> software() {
        Map<String, Object> p = new LinkedHashMap<>();
        Properties build = read(BUILD_FILE);
        p.put("structlr", build.getProperty("version", UNKNOWN));
        p.put("gitCommit", build.getProperty("git.commit", UNKNOWN));
        p.put("java", System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")");
        for (String[] lib : LIBRARIES) p.put(lib[0], version(lib[1], lib[2], lib[3]));
        // Jackson says its own version: in the shaded jar its pom.properties is overwritten by the copy
        // inside nd4j's relocated jackson (another version), which no code-source check can tell apart.
        p.put("jackson", com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString());
        p.put("nd4jBackend", backend());
        return p;
    }

    /** The version in the jar's pom.properties, or "unknown" when that jar is not on the class path. */
    static String version(String group, String artifact) {
        return read("META-INF/maven/" + group + "/" + artifact + "/pom.properties").getProperty("version", UNKNOWN);
    }

    /** As {@link #version(String, String)}, from the jar (or shaded jar) that holds {@code marker}. */
    static String version(String group, String artifact, String marker) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try {
            java.net.URL home = Class.forName(marker, false, Provenance.class.getClassLoader())
                    .getProtectionDomain().getCodeSource().getLocation();
            for (java.net.URL u : java.util.Collections.list(Provenance.class.getClassLoader().getResources(resource))) {
                if (u.toString().startsWith("jar:" + home + "!")) {
                    Properties p = new Properties();
                    try (InputStream in = u.openStream()) {
                        p.load(in);
                    }
                    return p.getProperty("version", UNKNOWN);
                }
            }
        } catch (ClassNotFoundException | IOException | SecurityException | NullPointerException e) {
            // no such jar, or no code source to match: the first copy on the class path, below
        }
        return version(group, artifact);
    }

    /** The backend ND4J loaded (its class) and the artifact and version of the backend jar present. */
    static String backend() {
        String name;
        try {
            name = Nd4j.getBackend().getClass().getSimpleName();
        } catch (RuntimeException | LinkageError e) {
            name = "none (" + e.getClass().getSimpleName() + ")";
        }
        for (String artifact : BACKENDS) {
            String v = version("org.nd4j", artifact);
            if (!v.equals(UNKNOWN)) return name + ", " + artifact + " " + v;
        }
        return name;
    }

    private static Properties read(String resource) {
        Properties p = new Properties();
        try (InputStream in = Provenance.class.getClassLoader().getResourceAsStream(resource)) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            // an unreadable resource is recorded as "unknown", never a reason to lose a trained model
        }
        return p;
    }
}
