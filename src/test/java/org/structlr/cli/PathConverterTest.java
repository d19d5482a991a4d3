package org.structlr.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class PathConverterTest {
    final PathConverter c = new PathConverter();

    @Test
    void fileUrisBecomeLocalPaths() {
        assertEquals(Path.of("/shared/data set"), c.convert("file:///shared/data%20set"));
        assertEquals(Path.of("/tmp/x"), c.convert("file:/tmp/x"));
    }

    @Test
    void plainPathsStayAsGiven() {
        assertEquals(Path.of("data/denoise"), c.convert("data/denoise"));
        assertEquals(Path.of("odd:name"), c.convert("odd:name"));
    }

    @Test
    void otherSchemesAreRefusedByName() {
        TypeConversionException e = assertThrows(TypeConversionException.class, () -> c.convert("hdfs://nn:8020/data"));
        assertTrue(e.getMessage().startsWith("hdfs://nn:8020/data: only local paths and file: URIs are supported (not hdfs://)"), e.getMessage());
    }

    @Test
    void localOnlyOptionsRefuseEverySchemeButFile() {
        PathConverter.Local local = new PathConverter.Local();
        assertEquals(Path.of("/tmp/x"), local.convert("file:/tmp/x"));
        assertEquals(Path.of("runs/ck"), local.convert("runs/ck"));
        TypeConversionException e = assertThrows(TypeConversionException.class, () -> local.convert("hdfs://nn:8020/ck"));
        assertTrue(e.getMessage().startsWith("hdfs://nn:8020/ck: this option takes a local path or a file: URI (not hdfs://)"), e.getMessage());
    }

    @Test
    void aRemoteCheckpointFolderIsOneUsageErrorNotARelativeFolder(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        InferCommandTest.Run r = InferCommandTest.run("train", "--data", dir.toString(), "--checkpoint", "hdfs://nn:8020/ck",
                "--output", dir.resolve("model").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("hdfs://nn:8020/ck: this option takes a local path or a file: URI (not hdfs://)"), r.err());
        assertTrue(java.nio.file.Files.notExists(dir.resolve("model")));
        assertTrue(java.nio.file.Files.notExists(Path.of("hdfs:")));
    }
}
