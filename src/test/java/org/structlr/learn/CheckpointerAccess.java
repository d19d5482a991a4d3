package org.structlr.learn;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/** Test access to Checkpointer's package-private naming rule and to a checkpoint's manifest. */
public final class CheckpointerAccess {
    private CheckpointerAccess() {}

    public static boolean isLeftover(String name) {
        return Checkpointer.LEFTOVER.matcher(name).matches();
    }

    /**
     * Edits the manifest of the checkpoint folder {@code checkpoint} and seals it again (its own
     * checksum recomputed), as a build that wrote it so would have: the checkpoint still loads.
     */
    public static void rewriteManifest(Path checkpoint, Consumer<ObjectNode> edit) throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode m = (ObjectNode) json.readTree(checkpoint.resolve(Checkpoint.MANIFEST).toFile());
        m.remove(Checkpoint.MANIFEST_SHA);
        edit.accept(m);
        m.put(Checkpoint.MANIFEST_SHA, Checkpoint.sha256(json.writeValueAsBytes(m)));
        json.writeValue(checkpoint.resolve(Checkpoint.MANIFEST).toFile(), m);
    }
}
