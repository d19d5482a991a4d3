package org.structlr.data;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The one way structlr writes a file or a folder that someone may read later (models, checkpoints,
 * data sets, predictions, reports, figures): into a temporary sibling, flushed to the disk, then
 * moved into place in one rename, so that a run killed at any moment, or a full disk, leaves either
 * the old output or the new one under the final name, never half of one.
 *
 * <ul>
 *   <li><b>Durability:</b> the file's (or every file's and folder's) contents are forced to the
 *       device ({@code fsync}) before the rename, and the parent folder after it, so the rename
 *       cannot reach the disk before the data it names.</li>
 *   <li><b>Permissions:</b> one rule for every writer, the user's umask: temporaries are created
 *       like any new file ({@code 0666 & ~umask}, folders {@code 0777 & ~umask}), not with
 *       {@link Files#createTempFile}'s private 0600, so the finished output has the mode any
 *       program of the user's would give it.</li>
 *   <li><b>Errors</b> name the final path: {@code FILE: cannot write: No space left on device}.
 *       Whatever was half-written is deleted; an existing output is left as it was.</li>
 * </ul>
 */
public final class AtomicFiles {
    private AtomicFiles() {}

    @FunctionalInterface
    public interface Body {
        void write(OutputStream out) throws IOException;
    }

    @FunctionalInterface
    public interface FolderBody {
        void write(Path folder) throws IOException;
    }

    /** Writes {@code target} atomically and durably; its folder is created when missing. */
    public static void write(Path target, Body body) throws IOException {
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = newSibling(abs, ".tmp", false);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE);
                 OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16)) {
                body.write(new KeepOpen(out));    // a body may close its stream (Jackson does); the sync comes after
                out.flush();
                ch.force(true);
            }
            move(tmp, abs, true);
            syncFolder(dir);
        } catch (IOException e) {
            throw cannotWrite(target, e);
        } finally {
            if (tmp != null) Files.deleteIfExists(tmp);
        }
    }

    public static void writeString(Path target, String text) throws IOException {
        write(target, out -> out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /**
     * Writes a whole folder: {@code body} fills a temporary sibling folder, which is synced and
     * then replaces {@code target}. An existing target is renamed aside first and deleted only once
     * the new one is in place (a crash between the two renames leaves it beside, named
     * {@code .NAME.old-*}, never lost). {@code isOurs} guards against replacing a folder this program
     * did not write.
     */
    public static void replaceFolder(Path target, FolderBody body, java.util.function.Predicate<Path> isOurs) throws IOException {
        Path abs = target.toAbsolutePath();
        Path parent = abs.getParent();
        Path tmp = null;
        try {
            Files.createDirectories(parent);
            tmp = newSibling(abs, ".tmp", true);
            body.write(tmp);
            syncTree(tmp);
            if (Files.exists(abs)) {
                if (!isOurs.test(abs)) throw new BadInputException(abs, "exists and was not written by structlr; not replacing it");
                Path old = newSibling(abs, ".old", true);
                Files.delete(old);
                move(abs, old, false);
                try {
                    move(tmp, abs, false);
                } catch (IOException e) {
                    move(old, abs, false);                                  // put the old one back
                    throw e;
                }
                syncFolder(parent);
                deleteTree(old);
            } else {
                move(tmp, abs, false);
                syncFolder(parent);
            }
        } catch (BadInputException e) {
            throw e;
        } catch (IOException e) {
            throw cannotWrite(target, e);
        } finally {
            if (tmp != null && Files.exists(tmp)) deleteTree(tmp);
        }
    }

    /**
     * A new empty file or folder beside {@code target} named {@code .NAME.RANDOM.tmp} (or
     * {@code .old}), created without explicit permissions, so the umask decides them.
     */
    private static Path newSibling(Path target, String suffix, boolean folder) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Path p = target.resolveSibling("." + target.getFileName() + "." + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + suffix);
            try {
                return folder ? Files.createDirectory(p) : Files.createFile(p);
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) throw e;
            }
        }
    }

    /** The body's view of the file: closing it only flushes. */
    private static final class KeepOpen extends java.io.FilterOutputStream {
        KeepOpen(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }

    private static void move(Path from, Path to, boolean replace) throws IOException {
        try {
            if (replace) Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            else Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            // a file system without atomic renames: still one move, the best it offers
            if (replace) Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
            else Files.move(from, to);
        }
    }

    /** Forces every file and folder under {@code root} to the device. */
    private static void syncTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                if (Files.isDirectory(p)) syncFolder(p);
                else if (Files.isRegularFile(p)) {
                    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                        ch.force(true);
                    }
                }
            }
        }
    }

    /** Forces a folder's entries to the device; a no-op where folders cannot be opened (not Linux/macOS). */
    private static void syncFolder(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (java.nio.file.AccessDeniedException | UnsupportedOperationException e) {
            // Windows cannot open a folder as a channel; its renames are durable on their own
        }
    }

    /** {@code TARGET: cannot write: REASON}, the reason the innermost I/O error's (a nested write's temporary path left out). */
    private static IOException cannotWrite(Path target, IOException e) {
        Throwable inner = e;
        for (Throwable c = e; c != null; c = c.getCause()) if (c instanceof IOException) inner = c;
        String why = inner instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                : inner.getMessage() != null ? inner.getMessage() : inner.getClass().getSimpleName();
        int nested = why.lastIndexOf(": cannot write: ");
        if (nested >= 0) why = why.substring(nested + ": cannot write: ".length());
        return new IOException(target + ": cannot write: " + why, e);
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
        }
    }
}
