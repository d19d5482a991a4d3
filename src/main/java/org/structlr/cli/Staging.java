package org.structlr.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.RemoteFiles;

/**
 * Paths on a remote file system ({@code hdfs://...}), given to any path option, staged through a
 * local folder for one command: {@link #stage} copies what is at the URI into a fresh local folder
 * (or reserves a local path when nothing is there: an output), and after the command succeeded
 * {@link #publish} copies back every staged path the command changed. A command that fails
 * publishes nothing, so a bad run leaves no model behind. Commands keep working on
 * {@link java.nio.file.Path}s; only this class knows about URIs.
 */
final class Staging {
    private static final ThreadLocal<Staging> CURRENT = new ThreadLocal<>();

    private final RemoteFiles remote;
    private Path root;
    /** Staged local path -> its URI and what was there when staged (relative file -> size and time). */
    private final Map<Path, Entry> staged = new LinkedHashMap<>();

    private record Entry(String uri, Map<String, String> before) {}

    private Staging(RemoteFiles remote) {
        this.remote = remote;
    }

    /** Starts a command's staging (Main.execute). */
    static void begin() {
        CURRENT.set(null);
    }

    /** The local path for a remote URI of the command being parsed. */
    static Path stage(String uri) {
        Staging s = CURRENT.get();
        if (s == null) {
            RemoteFiles r = RemoteFiles.find().orElse(null);
            if (r == null) return null;
            s = new Staging(r);
            CURRENT.set(s);
        }
        return s.stageHere(uri);
    }

    /** Whether this build can stage remote URIs at all. */
    static boolean available() {
        return RemoteFiles.find().isPresent();
    }

    private Path stageHere(String uri) {
        try {
            if (root == null) root = Files.createTempDirectory("structlr-stage");
            String name = uri.replaceAll("/+$", "");
            name = name.substring(name.lastIndexOf('/') + 1);
            Path local = Files.createDirectories(root.resolve(Integer.toString(staged.size()))).resolve(name.isEmpty() ? "root" : name);
            if (remote.exists(uri)) remote.fetch(uri, local);
            staged.put(local, new Entry(uri, snapshot(local)));
            return local;
        } catch (IOException e) {
            throw new BadInputException(uri + ": cannot read: " + e.getMessage());
        }
    }

    /** The URI a local path was staged from (or lies inside), or null: what executors are given instead of the driver's copy. */
    static String uriOf(Path p) {
        Staging s = CURRENT.get();
        if (s == null) return null;
        Path abs = p.toAbsolutePath().normalize();
        for (Map.Entry<Path, Entry> e : s.staged.entrySet()) {
            Path root = e.getKey().toAbsolutePath().normalize();
            if (abs.equals(root)) return e.getValue().uri();
            if (abs.startsWith(root)) {
                String rel = root.relativize(abs).toString().replace(java.io.File.separatorChar, '/');
                return e.getValue().uri().replaceAll("/+$", "") + "/" + rel;
            }
        }
        return null;
    }

    /** A message with every staged local path in it replaced by its URI (errors name what the user gave). */
    static String unstage(String message) {
        Staging s = CURRENT.get();
        if (s == null || message == null) return message;
        for (Map.Entry<Path, Entry> e : s.staged.entrySet()) {
            message = message.replace(e.getKey().toAbsolutePath().normalize().toString(), e.getValue().uri().replaceAll("/+$", ""));
        }
        return message;
    }

    /** A staged path that the command wrote remotely itself (predict --spark's executors): not published again. */
    static void written(Path p) {
        Staging s = CURRENT.get();
        if (s != null) s.staged.remove(p);
    }

    /**
     * After a command: on success, copies every staged path it changed to its URI; always removes
     * the local copies. Returns an error line, or null.
     */
    static String finish(boolean success) {
        Staging s = CURRENT.get();
        CURRENT.remove();
        if (s == null) return null;
        try {
            if (success) {
                for (Map.Entry<Path, Entry> e : s.staged.entrySet()) {
                    if (!Files.exists(e.getKey()) || snapshot(e.getKey()).equals(e.getValue().before())) continue;
                    try {
                        s.remote.publish(e.getKey(), e.getValue().uri());
                    } catch (IOException ex) {
                        return e.getValue().uri() + ": cannot write: " + ex.getMessage();
                    }
                }
            }
            return null;
        } finally {
            try {
                if (s.root != null) AtomicFiles.deleteTree(s.root);
            } catch (IOException ignored) {
                // a temporary folder left behind is no reason to fail a finished command
            }
        }
    }

    /** Every file under p (or p itself) with its size and modification time. */
    private static Map<String, String> snapshot(Path p) {
        Map<String, String> out = new TreeMap<>();
        if (!Files.exists(p)) return out;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.filter(Files::isRegularFile).toList()) {
                out.put(p.relativize(f).toString(), Files.size(f) + "@" + Files.getLastModifiedTime(f).toMillis());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
