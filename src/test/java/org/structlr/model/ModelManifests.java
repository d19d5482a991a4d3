package org.structlr.model;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/** Test access to a model folder's manifest (model.json), for tests outside this package. */
public final class ModelManifests {
    private ModelManifests() {}

    /**
     * Edits the manifest of the model folder {@code dir} and seals it again (every file's checksum and
     * its own recomputed), as a build that wrote it so would have (or an attacker): the model still
     * passes the checksum gate.
     */
    public static Path rewrite(Path dir, Consumer<ObjectNode> change) throws IOException {
        ObjectNode m = (ObjectNode) CrfModel.JSON.readTree(dir.resolve(CrfModel.MANIFEST).toFile());
        m.remove(CrfModel.MANIFEST_SHA);
        change.accept(m);
        m.set("sha256", CrfModel.JSON.valueToTree(CrfModel.checksums(dir)));
        m.put(CrfModel.MANIFEST_SHA, CrfModel.manifestHash(m));
        CrfModel.JSON.writeValue(dir.resolve(CrfModel.MANIFEST).toFile(), m);
        return dir;
    }
}
