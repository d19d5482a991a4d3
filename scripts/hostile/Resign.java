import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Map;

/**
 * What an attacker can do to a model folder (scripts/hostile-inputs): recompute every SHA-256 in
 * model.json after changing files, since the manifest has no key. Runs on structlr's jar:
 *   java -cp target/structlr.jar scripts/hostile/Resign.java MODEL_DIR
 */
public class Resign {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Class<?> c = Class.forName("org.structlr.model.CrfModel");
        Method checksums = c.getDeclaredMethod("checksums", Path.class), hash = c.getDeclaredMethod("manifestHash", com.fasterxml.jackson.databind.JsonNode.class);
        checksums.setAccessible(true);
        hash.setAccessible(true);
        ObjectMapper json = new ObjectMapper().enable(com.fasterxml.jackson.databind.SerializationFeature.INDENT_OUTPUT);
        ObjectNode m = (ObjectNode) json.readTree(dir.resolve("model.json").toFile());
        m.remove("manifest_sha256");
        m.set("sha256", json.valueToTree((Map<?, ?>) checksums.invoke(null, dir)));
        m.put("manifest_sha256", (String) hash.invoke(null, m));
        json.writeValue(dir.resolve("model.json").toFile(), m);
    }
}
