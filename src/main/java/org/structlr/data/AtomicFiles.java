package org.structlr.data;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a file through a temporary file in the same folder and moves it into place, so an
 * interrupted run never leaves a truncated file under the final name.
 */
public final class AtomicFiles {
    private AtomicFiles() {}

    @FunctionalInterface
    public interface Body {
        void write(OutputStream out) throws IOException;
    }

    public static void write(Path target, Body body) throws IOException {
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + abs.getFileName() + ".", ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                body.write(out);
            }
            readableByAll(tmp, false);
            Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Writes a whole folder: {@code body} fills a temporary sibling folder, which then replaces
     * {@code target} (an existing target is moved aside first and deleted after). {@code isOurs}
     * guards against replacing a folder this program did not write.
     */
    public static void replaceFolder(Path target, FolderBody body, java.util.function.Predicate<Path> isOurs) throws IOException {
        Path abs = target.toAbsolutePath();
        Path parent = abs.getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempDirectory(parent, "." + abs.getFileName() + ".tmp-");
        try {
            body.write(tmp);
            readableByAll(tmp, true);
            if (Files.exists(abs)) {
                if (!isOurs.test(abs)) throw new BadInputException(abs, "exists and was not written by structlr; not replacing it");
                Path old = Files.createTempDirectory(parent, "." + abs.getFileName() + ".old-");
                Files.delete(old);
                Files.move(abs, old, StandardCopyOption.ATOMIC_MOVE);
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE);
                deleteTree(old);
            } else {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            if (Files.exists(tmp)) deleteTree(tmp);
        }
    }

    /**
     * Temporary files and folders are created private (0600 / 0700); a finished output gets the
     * usual 0644 / 0755 so that other users and tools can read it. No-op where POSIX modes do not exist.
     */
    static void readableByAll(Path p, boolean folder) throws IOException {
        if (!Files.getFileStore(p).supportsFileAttributeView(java.nio.file.attribute.PosixFileAttributeView.class)) return;
        Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString(folder ? "rwxr-xr-x" : "rw-r--r--"));
    }

    @FunctionalInterface
    public interface FolderBody {
        void write(Path folder) throws IOException;
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (java.util.stream.Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.sorted(java.util.Comparator.reverseOrder())::iterator) Files.delete(p);
        }
    }

    public static void writeString(Path target, String text) throws IOException {
        write(target, out -> out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
}
