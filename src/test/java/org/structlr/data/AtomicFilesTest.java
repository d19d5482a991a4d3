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

    /** The mode the umask gives a plain new file or folder here. */
    static String umaskMode(Path p, boolean folder) throws IOException {
        if (folder) Files.createDirectory(p);
        else Files.createFile(p);
        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        Files.delete(p);
        return mode;
    }

    @Test
    void finishedFilesAndFoldersGetTheUmasksMode() throws IOException {
        String file = umaskMode(tmp.resolve("probe"), false), folder = umaskMode(tmp.resolve("probe-dir"), true);
        Path f = tmp.resolve("a.txt");
        AtomicFiles.writeString(f, "x");
        assertEquals(file, PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Path d = tmp.resolve("folder");
        AtomicFiles.replaceFolder(d, dir -> Files.writeString(dir.resolve("b"), "y"), p -> true);
        assertEquals(folder, PosixFilePermissions.toString(Files.getPosixFilePermissions(d)));
        assertEquals(file, PosixFilePermissions.toString(Files.getPosixFilePermissions(d.resolve("b"))));
        // .npz outputs too (they were 0600)
        Path npz = tmp.resolve("x.npz");
        Npz.write(npz, java.util.Map.of("a", NpyArray.scalarInt(1)));
        assertEquals(file, PosixFilePermissions.toString(Files.getPosixFilePermissions(npz)));
    }

    @Test
    void aFailedWriteNamesTheFileAndKeepsTheOldFolder() throws IOException {
        Path d = tmp.resolve("model");
        AtomicFiles.replaceFolder(d, dir -> Files.writeString(dir.resolve("old"), "1"), p -> true);
        IOException e = assertThrows(IOException.class, () -> AtomicFiles.replaceFolder(d, dir -> {
            Files.writeString(dir.resolve("new"), "2");
            throw new IOException("No space left on device");
        }, p -> true));
        assertEquals(d + ": cannot write: No space left on device", e.getMessage());
        assertEquals("1", Files.readString(d.resolve("old")));
        try (Stream<Path> s = Files.list(tmp)) {
            assertEquals(java.util.List.of("model"), s.map(p -> p.getFileName().toString()).toList(), "nothing temporary left");
        }
        Path f = tmp.resolve("FILE");
        Files.writeString(f, "x");
        IOException under = assertThrows(IOException.class, () -> AtomicFiles.writeString(f.resolve("y.json"), "{}"));
        assertTrue(under.getMessage().startsWith(f.resolve("y.json") + ": cannot write: "), under.getMessage());
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
