package org.structlr.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
    @TempDir
    Path tmp;

    @Test
    void finishedFilesAndFoldersAreReadableByAll() throws IOException {
        Path f = tmp.resolve("a.txt");
        AtomicFiles.writeString(f, "x");
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Path d = tmp.resolve("folder");
        AtomicFiles.replaceFolder(d, dir -> Files.writeString(dir.resolve("b"), "y"), p -> true);
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
    }

    @Test
    void aFailingWriteLeavesNothingBehind() throws IOException {
        Path f = tmp.resolve("c.txt");
        assertThrows(IOException.class, () -> AtomicFiles.write(f, out -> {
            out.write(1);
            throw new IOException("interrupted");
        }));
        assertFalse(Files.exists(f));
        try (Stream<Path> s = Files.list(tmp)) {
            assertEquals(0, s.count(), "a temporary file was left behind");
        }
        AtomicFiles.writeString(f, "old");
        assertThrows(IOException.class, () -> AtomicFiles.write(f, out -> {
            throw new IOException("interrupted");
        }));
        assertTrue(Files.readString(f).equals("old"), "the previous file was damaged");
    }
}
