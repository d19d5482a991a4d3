package org.structlr.learn;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.RemoteFiles;

/**
 * Saves the learner's state into a checkpoint folder after every {@code every}-th iteration and after
 * the last. Each save is a complete folder {@code iteration-NNNNNN} that appears by one rename;
 * older ones are deleted only after it is in place, so a run killed at any moment leaves at least
 * one complete checkpoint, and {@link #latest} is the newest.
 */
public final class Checkpointer implements StateSink {
    private static final Pattern NAME = Pattern.compile("iteration-(\\d{6,})");
    /** Leftovers of a save that was killed ({@link AtomicFiles#replaceFolder}'s and {@link RemoteFiles#publish}'s temporaries). */
    private static final Pattern LEFTOVER = Pattern.compile("\\.iteration-\\d{6,}\\.(tmp|old)-.*");

    private final Folder dir;
    private final int every;
    private final String unaryKind, pairKind;
    private final LearnSettings settings;
    private final int threads;
    private final String dataHash, examplesHash;

    public Checkpointer(Path dir, int every, String unaryKind, String pairKind, LearnSettings settings, int threads, String dataHash) {
        this(dir, every, unaryKind, pairKind, settings, threads, dataHash, null);
    }

    /** Checkpoints into a local folder, recording both hashes of the data (either may be null: not known). */
    public Checkpointer(Path dir, int every, String unaryKind, String pairKind, LearnSettings settings, int threads, String dataHash,
                        String examplesHash) {
        this(new LocalFolder(dir), every, unaryKind, pairKind, settings, threads, dataHash, examplesHash);
    }

    /**
     * Checkpoints into the folder {@code uri} of a remote file system: each checkpoint is written
     * locally, then copied to a temporary sibling of its {@code iteration-NNNNNN} folder and renamed
     * into place ({@link RemoteFiles#publish}); older ones are deleted after that, as locally.
     */
    public static Checkpointer remote(String uri, RemoteFiles fs, int every, String unaryKind, String pairKind, LearnSettings settings,
                                      int threads, String dataHash, String examplesHash) {
        return new Checkpointer(new RemoteFolder(uri, fs), every, unaryKind, pairKind, settings, threads, dataHash, examplesHash);
    }

    private Checkpointer(Folder dir, int every, String unaryKind, String pairKind, LearnSettings settings, int threads, String dataHash,
                         String examplesHash) {
        if (every < 1) throw new IllegalArgumentException("checkpoints every " + every + " iterations: need at least 1");
        this.dir = dir;
        this.every = every;
        this.unaryKind = unaryKind;
        this.pairKind = pairKind;
        this.settings = settings;
        this.threads = threads;
        this.dataHash = dataHash;
        this.examplesHash = examplesHash;
    }

    @Override
    public boolean wants(int iteration, int total) {
        return iteration % every == 0 || iteration == total;
    }

    @Override
    public void accept(LearnerState state) throws IOException {
        String target = String.format(Locale.ROOT, "iteration-%06d", state.iteration());
        dir.put(target, new Checkpoint(unaryKind, pairKind, settings, threads, dataHash, examplesHash, state));
        for (String n : dir.names()) {
            if ((NAME.matcher(n).matches() && !n.equals(target)) || LEFTOVER.matcher(n).matches()) dir.delete(n);
        }
    }

    /**
     * Refuses, before any training, a checkpoint folder that cannot be ours: an existing file, or a
     * folder holding anything but checkpoints.
     */
    public static void checkWritable(Path dir) {
        checkWritable(new LocalFolder(dir));
    }

    /** As {@link #checkWritable(Path)}, for the folder {@code uri} of a remote file system. */
    public static void checkWritable(String uri, RemoteFiles fs) {
        checkWritable(new RemoteFolder(uri, fs));
    }

    private static void checkWritable(Folder dir) {
        if (!dir.exists()) return;
        if (!dir.isFolder()) throw new BadInputException(dir + ": cannot write --checkpoint: exists and is a file, not a folder");
        for (String n : dir.names()) {
            if (!NAME.matcher(n).matches() && !LEFTOVER.matcher(n).matches()) {
                throw new BadInputException(dir + ": cannot write --checkpoint: the folder holds " + n + ", which is not a structlr checkpoint; not writing into it");
            }
        }
    }

    /** The newest complete checkpoint folder under {@code dir}. */
    static Path latest(Path dir) {
        return Path.of(new LocalFolder(dir).child(latest(new LocalFolder(dir))));
    }

    /** The name of the newest complete checkpoint folder in {@code dir}. */
    private static String latest(Folder dir) {
        if (!dir.isFolder()) throw new BadInputException(dir + ": no such checkpoint folder");
        String best = null;
        long bestIt = -1;
        for (String n : dir.names()) {
            var m = NAME.matcher(n);
            if (m.matches() && dir.isFolder(n) && Long.parseLong(m.group(1)) > bestIt) {
                best = n;
                bestIt = Long.parseLong(m.group(1));
            }
        }
        if (best == null) throw new BadInputException(dir + ": not a structlr checkpoint (no " + Checkpoint.MANIFEST + ", no iteration-NNNNNN folder)");
        return best;
    }

    /**
     * Loads the checkpoint at {@code uri} on a remote file system (a checkpoint folder, or the latest
     * of a folder this class writes into): copied into a local temporary folder, loaded by
     * {@link Checkpoint#load} (so the same format and checks), the copy deleted. Errors name the URI.
     */
    public static Checkpoint load(String uri, RemoteFiles fs) {
        RemoteFolder dir = new RemoteFolder(uri, fs);
        String source = dir.exists(Checkpoint.MANIFEST) ? uri : dir.child(latest(dir));
        Path tmp = null;
        try {
            tmp = Files.createTempDirectory("structlr-resume");
            Path local = tmp.resolve("checkpoint");
            fs.fetch(source, local);
            try {
                return Checkpoint.load(local);
            } catch (BadInputException e) {
                throw new BadInputException(e.getMessage().replace(local.toString(), source.replaceAll("/+$", "")));
            }
        } catch (IOException e) {
            throw new BadInputException(source + ": cannot read: " + e.getMessage());
        } finally {
            if (tmp != null) {
                try {
                    AtomicFiles.deleteTree(tmp);
                } catch (IOException ignored) {
                    // a temporary copy left behind is no reason to fail the resumed run
                }
            }
        }
    }

    /** The folder checkpoints go into: local or on a remote file system. */
    private interface Folder {
        boolean exists();
        boolean isFolder();
        boolean isFolder(String name);
        List<String> names();
        void put(String name, Checkpoint c) throws IOException;
        void delete(String name) throws IOException;
        String child(String name);
    }

    private record LocalFolder(Path dir) implements Folder {
        @Override public boolean exists() { return Files.exists(dir); }
        @Override public boolean isFolder() { return Files.isDirectory(dir); }
        @Override public boolean isFolder(String name) { return Files.isDirectory(dir.resolve(name)); }
        @Override public String child(String name) { return dir.resolve(name).toString(); }
        @Override public void put(String name, Checkpoint c) throws IOException { c.save(dir.resolve(name)); }
        @Override public void delete(String name) throws IOException { AtomicFiles.deleteTree(dir.resolve(name)); }
        @Override public String toString() { return dir.toString(); }

        @Override
        public List<String> names() {
            if (!Files.isDirectory(dir)) return List.of();
            try (Stream<Path> s = Files.list(dir)) {
                return s.sorted().map(p -> p.getFileName().toString()).toList();
            } catch (IOException e) {
                throw new BadInputException(dir, "cannot list: " + e.getMessage(), e);
            }
        }
    }

    private record RemoteFolder(String uri, RemoteFiles fs) implements Folder {
        @Override public boolean exists() { return io(() -> fs.exists(uri)); }
        @Override public boolean isFolder() { return io(() -> fs.isFolder(uri)); }
        @Override public boolean isFolder(String name) { return io(() -> fs.isFolder(child(name))); }
        boolean exists(String name) { return io(() -> fs.exists(child(name))); }
        @Override public String child(String name) { return uri.replaceAll("/+$", "") + "/" + name; }
        @Override public String toString() { return uri; }

        @Override
        public List<String> names() {
            return io(() -> fs.list(uri).stream().map(RemoteFiles.Entry::name).toList());
        }

        /** Written locally by {@link Checkpoint#save}, then published: a temporary sibling renamed into place. */
        @Override
        public void put(String name, Checkpoint c) throws IOException {
            Path tmp = Files.createTempDirectory("structlr-checkpoint");
            try {
                c.save(tmp.resolve(name));
                fs.publish(tmp.resolve(name), child(name));
            } finally {
                AtomicFiles.deleteTree(tmp);
            }
        }

        @Override
        public void delete(String name) throws IOException {
            fs.delete(child(name));
        }

        private <T> T io(IoCall<T> call) {
            try {
                return call.get();
            } catch (IOException e) {
                throw new BadInputException(uri + ": cannot read: " + e.getMessage());
            }
        }
    }

    private interface IoCall<T> {
        T get() throws IOException;
    }
}
