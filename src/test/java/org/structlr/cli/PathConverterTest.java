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
}
