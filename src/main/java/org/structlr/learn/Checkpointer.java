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
import org.structlr.oracle.FunctionSpec;

/**
 * Saves the learner's state into a checkpoint folder after every {@code every}-th iteration and after
 * the last. Each save is a complete folder {@code iteration-NNNNNN} that appears by one rename
 * (synced to the disk first); the two newest are kept and older ones deleted only after the new one
 * is in place, so a run killed at any moment leaves at least one complete checkpoint, and one whose
 * newest checkpoint was damaged afterwards (a disk error, a partial copy) still resumes from the one
 * before ({@link Checkpoint#load(Path, java.util.function.Consumer)}).
 *
 * <p>The folder holds one run's checkpoints. The two kept are the newest of this run's: those it
 * saved, and when it continues a checkpoint of this folder ({@link #resuming}) that one and the
 * ones before it. Every other {@code iteration-NNNNNN} folder is another run's, or one the resume
 * skipped as damaged: a save at its iteration replaces it (complete or not), and each save deletes
 * it, like the older ones; so a new run into a folder of an earlier run's checkpoints replaces them
 * once its first checkpoint is in place, and none of them is ever taken for this run's.
 */
public final class Checkpointer implements StateSink {
    private static final Pattern NAME = Pattern.compile("iteration-(\\d{6,})");
    /**
     * Leftovers of a save that was killed: {@link AtomicFiles#replaceFolder}'s temporaries
     * ({@code .iteration-N.RANDOM.tmp} / {@code .old}) and {@link RemoteFiles#publish}'s
     * ({@code .iteration-N.tmp-UUID} / {@code .old-UUID}).
     */
    static final Pattern LEFTOVER = Pattern.compile("\\.iteration-\\d{6,}\\.([0-9a-z]+\\.(tmp|old)|(tmp|old)-.*)");

    /** Complete checkpoints kept: the newest and the one before, to fall back on. */
    static final int KEPT = 2;

    /**
     * Iterations between checkpoints when nothing says otherwise ({@code train --checkpoint-every}'s
     * default), and of a resumed run whose checkpoint records no interval and whose folder shows none.
     */
    public static final int DEFAULT_EVERY = 5;

    private final Folder dir;
    private final int every;
    private final FunctionSpec unary, pair;
    private final LearnSettings settings;
    private final int threads;
    private final String dataHash, examplesHash;
    private final org.structlr.model.RegionLayout regions;
    private final RowWeights weights;
    /** The iteration of the checkpoint of this folder the run continues, -1 when it continues none. */
    private final long continues;
    /** The checkpoints this run saved (names). */
    private final java.util.Set<String> saved = new java.util.HashSet<>();

    /** Checkpoints of the two classes with every option at its default, recording the data hash. */
    public Checkpointer(Path dir, int every, String unaryKind, String pairKind, LearnSettings settings, int threads, String dataHash) {
        this(dir, every, FunctionSpec.unary(unaryKind), FunctionSpec.pairwise(pairKind), settings, threads, dataHash, null);
    }

    /** Checkpoints into a local folder, recording both hashes of the data (either may be null: not known). */
    public Checkpointer(Path dir, int every, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads, String dataHash,
                        String examplesHash) {
        this(new LocalFolder(dir), every, unary, pair, settings, threads, dataHash, examplesHash);
    }

    /**
     * Checkpoints into the folder {@code uri} of a remote file system: each checkpoint is written
     * locally, then copied to a temporary sibling of its {@code iteration-NNNNNN} folder and renamed
     * into place ({@link RemoteFiles#publish}); older ones are deleted after that, as locally.
     */
    public static Checkpointer remote(String uri, RemoteFiles fs, int every, FunctionSpec unary, FunctionSpec pair, LearnSettings settings,
                                      int threads, String dataHash, String examplesHash) {
        return new Checkpointer(new RemoteFolder(uri, fs), every, unary, pair, settings, threads, dataHash, examplesHash);
    }

    private Checkpointer(Folder dir, int every, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads, String dataHash,
                         String examplesHash) {
        this(dir, every, unary, pair, settings, threads, dataHash, examplesHash, org.structlr.model.RegionLayout.NONE, RowWeights.NONE, -1);
    }

    private Checkpointer(Folder dir, int every, FunctionSpec unary, FunctionSpec pair, LearnSettings settings, int threads, String dataHash,
                         String examplesHash, org.structlr.model.RegionLayout regions, RowWeights weights, long continues) {
        if (every < 1) throw new IllegalArgumentException("checkpoints every " + every + " iterations: need at least 1");
        this.dir = dir;
        this.every = every;
        this.unary = unary;
        this.pair = pair;
        this.settings = settings;
        this.threads = threads;
        this.dataHash = dataHash;
        this.examplesHash = examplesHash;
        this.regions = regions;
        this.weights = weights;
        this.continues = continues;
    }

    /** These checkpoints of a run with region factors {@code regions} and row weights {@code weights}, which they record. */
    public Checkpointer recording(org.structlr.model.RegionLayout regions, RowWeights weights) {
        return new Checkpointer(dir, every, unary, pair, settings, threads, dataHash, examplesHash, regions, weights, continues);
    }

    /**
     * These checkpoints of a run resumed from the checkpoint {@code resumedFrom} (a folder of
     * checkpoints, or one of them) at iteration {@code iteration}: when that checkpoint is in this
     * folder, it and the ones before it are this run's past (kept as this run's own); otherwise the
     * folder's checkpoints are another run's, replaced as a new run replaces them.
     */
    public Checkpointer resuming(Path resumedFrom, int iteration) {
        return resuming(new LocalFolder(resumedFrom), iteration);
    }

    /** As {@link #resuming(Path, int)} for a checkpoint resumed from the folder {@code uri} of a remote file system. */
    public Checkpointer resuming(String uri, RemoteFiles fs, int iteration) {
        return resuming(new RemoteFolder(uri, fs), iteration);
    }

    private Checkpointer resuming(Folder resumed, int iteration) {
        Folder home = resumed.isFile(Checkpoint.MANIFEST) ? resumed.parent() : resumed;
        boolean here = home != null && dir.sameAs(home);
        return new Checkpointer(dir, every, unary, pair, settings, threads, dataHash, examplesHash, regions, weights, here ? iteration : -1);
    }

    @Override
    public boolean wants(int iteration, int total) {
        return iteration % every == 0 || iteration == total;
    }

    @Override
    public void accept(LearnerState state) throws IOException {
        String target = String.format(Locale.ROOT, "iteration-%06d", state.iteration());
        dir.put(target, new Checkpoint(unary, pair, settings, threads, dataHash, examplesHash, state, regions, weights, every));
        saved.add(target);
        List<String> keep = newestFirst(dir).stream().filter(n -> saved.contains(n) || iterationOf(n) <= continues).limit(KEPT).toList();
        for (String n : dir.names()) {
            if ((NAME.matcher(n).matches() && !keep.contains(n)) || LEFTOVER.matcher(n).matches()) dir.delete(n);
        }
    }

    /**
     * Refuses, before any training, a checkpoint folder that cannot be ours: an existing file, a
     * folder that is not writable, or one holding anything but checkpoints.
     */
    public static void checkWritable(Path dir) {
        checkWritable(new LocalFolder(dir));
    }

    /** As {@link #checkWritable(Path)}, for the folder {@code uri} of a remote file system. */
    public static void checkWritable(String uri, RemoteFiles fs) {
        checkWritable(new RemoteFolder(uri, fs));
    }

    private static void checkWritable(Folder dir) {
        String problem = unwritable(dir);
        if (problem != null) throw new BadInputException(dir + ": cannot write --checkpoint: " + problem);
    }

    /**
     * Why checkpoints cannot go into {@code dir} (a file; a folder that is not writable; a folder
     * holding other things), null when they can. Not writable is said first: clearing the folder
     * would not help then.
     */
    private static String unwritable(Folder dir) {
        if (!dir.exists()) return null;
        if (!dir.isFolder()) return "exists and is a file, not a folder";
        if (!dir.writable()) return "the folder is not writable";
        String other = stranger(dir);
        return other == null ? null : "the folder holds " + other + ", which is not a structlr checkpoint; not writing into it";
    }

    /** The first entry of the folder {@code dir} that is neither a checkpoint nor a save's leftover, null when there is none. */
    private static String stranger(Folder dir) {
        for (String n : dir.names()) if (!NAME.matcher(n).matches() && !LEFTOVER.matcher(n).matches()) return n;
        return null;
    }

    /**
     * The folder a run resumed from {@code resumed} goes on checkpointing into when it is given no
     * other, as the run it continues would have: {@code resumed} itself when it is a folder of
     * checkpoints; when it is one checkpoint (an {@code iteration-NNNNNN} folder) the folder of
     * checkpoints holding it, if that holds none newer (a redone iteration would mix two runs'
     * checkpoints). Otherwise, or when the folder cannot be written, an error naming {@code resumed}
     * that asks for another folder by {@code how} (the option or method that names one).
     *
     * @param iteration the iteration of the checkpoint resumed
     */
    public static Path continuing(Path resumed, int iteration, String how) {
        return ((LocalFolder) continuing(new LocalFolder(resumed), iteration, how)).dir();
    }

    /** As {@link #continuing(Path, int, String)}, for a checkpoint resumed from the folder {@code uri} of a remote file system. */
    public static String continuing(String uri, RemoteFiles fs, int iteration, String how) {
        return continuing(new RemoteFolder(uri, fs), iteration, how).toString();
    }

    private static Folder continuing(Folder resumed, int iteration, String how) {
        String cannot = resumed + ": cannot go on checkpointing into the folder resumed from: ";
        Folder home = resumed;
        if (resumed.isFile(Checkpoint.MANIFEST)) {
            home = resumed.parent();
            if (home == null || !NAME.matcher(resumed.name()).matches() || stranger(home) != null) {
                throw new BadInputException(cannot + "it is one checkpoint, not in a folder of checkpoints; give this run's checkpoints a folder with " + how);
            }
            List<String> newer = newestFirst(home).stream().filter(n -> iterationOf(n) > iteration).toList();
            if (!newer.isEmpty()) {
                throw new BadInputException(cannot + home + " holds a newer checkpoint (" + newer.get(0) + ") that this run would mix with its own;"
                        + " resume the folder (its newest) or give this run's checkpoints another folder with " + how);
            }
        }
        String problem = unwritable(home);
        if (problem != null) throw new BadInputException(cannot + problem + "; give this run's checkpoints another folder with " + how);
        return home;
    }

    /**
     * The iterations between the two newest of the checkpoint folders {@code newestFirst} (0 with
     * fewer than two): the interval of the run that wrote them, or less when the newest is a run's
     * last. What a checkpoint written before the interval was recorded continues with.
     */
    static int gap(List<String> newestFirst) {
        return newestFirst.size() < 2 ? 0 : (int) (iterationOf(newestFirst.get(0)) - iterationOf(newestFirst.get(1)));
    }

    private static long iterationOf(String name) {
        return Long.parseLong(name.substring("iteration-".length()));
    }

    /** The checkpoint folders under {@code dir}, newest first (none: an error naming the folder). */
    static List<Path> newestFirst(Path dir) {
        LocalFolder f = new LocalFolder(dir);
        return newestFirst(f).stream().map(n -> Path.of(f.child(n))).toList();
    }

    /** The names of the checkpoint folders in {@code dir}, newest first. */
    private static List<String> newestFirst(Folder dir) {
        if (!dir.isFolder()) throw new BadInputException(dir + ": no such checkpoint folder");
        List<String> names = new java.util.ArrayList<>();
        for (String n : dir.names()) if (NAME.matcher(n).matches() && dir.isFolder(n)) names.add(n);
        if (names.isEmpty()) throw new BadInputException(dir + ": not a structlr checkpoint (no " + Checkpoint.MANIFEST + ", no iteration-NNNNNN folder)");
        names.sort(java.util.Comparator.comparingLong(Checkpointer::iterationOf).reversed());
        return names;
    }

    /**
     * Loads the checkpoint at {@code uri} on a remote file system (a checkpoint folder, or the latest
     * of a folder this class writes into): copied into a local temporary folder, loaded by
     * {@link Checkpoint#load} (so the same format and checks), the copy deleted. Errors name the URI.
     * When the newest checkpoint is damaged, the one before is loaded and {@code onFallback} told why.
     */
    public static Checkpoint load(String uri, RemoteFiles fs, java.util.function.Consumer<String> onFallback) {
        RemoteFolder dir = new RemoteFolder(uri, fs);
        if (dir.isFile(Checkpoint.MANIFEST)) return loadRemote(uri, fs);
        List<String> names = newestFirst(dir);
        BadInputException newest = null;
        for (String n : names.subList(0, Math.min(KEPT, names.size()))) {
            try {
                Checkpoint c = loadRemote(dir.child(n), fs);
                if (newest != null) onFallback.accept(newest.getMessage() + "; resuming from the one before, " + dir.child(n));
                return c.interval() > 0 ? c : c.withInterval(gap(names));
            } catch (BadInputException e) {
                if (newest == null) newest = e;
            }
        }
        throw newest;
    }

    private static Checkpoint loadRemote(String source, RemoteFiles fs) {
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
        boolean isFile(String name);
        /** Whether files can be created in it (remote: assumed, the first write says otherwise). */
        boolean writable();
        /** The folder holding this one, null at the root. */
        Folder parent();
        /** This folder's own name. */
        String name();
        /** Whether {@code other} is this folder (another spelling of its path included). */
        boolean sameAs(Folder other);
        List<String> names();
        void put(String name, Checkpoint c) throws IOException;
        void delete(String name) throws IOException;
        String child(String name);
    }

    private record LocalFolder(Path dir) implements Folder {
        @Override public boolean exists() { return Files.exists(dir); }
        @Override public boolean isFolder() { return Files.isDirectory(dir); }
        @Override public boolean isFolder(String name) { return Files.isDirectory(dir.resolve(name)); }
        @Override public boolean isFile(String name) { return Files.isRegularFile(dir.resolve(name)); }
        @Override public boolean writable() { return Files.isWritable(dir); }
        @Override public String name() { return dir.toAbsolutePath().normalize().getFileName() + ""; }
        @Override public String child(String name) { return dir.resolve(name).toString(); }

        @Override
        public Folder parent() {
            Path p = dir.toAbsolutePath().normalize().getParent();
            return p == null ? null : new LocalFolder(dir.getParent() != null ? dir.getParent() : p);
        }
        /**
         * Replaces an existing {@code name} that is a checkpoint, or that is any folder in a folder of
         * checkpoints (one a killed copy left without its manifest: another run's, or damaged).
         */
        @Override
        public void put(String name, Checkpoint c) throws IOException {
            c.save(dir.resolve(name), existing -> Files.isRegularFile(existing.resolve(Checkpoint.MANIFEST)) || stranger(this) == null);
        }
        @Override public void delete(String name) throws IOException { AtomicFiles.deleteTree(dir.resolve(name)); }

        @Override
        public boolean sameAs(Folder other) {
            if (!(other instanceof LocalFolder o)) return false;
            try {
                return Files.isSameFile(dir, o.dir);
            } catch (IOException e) {
                return dir.toAbsolutePath().normalize().equals(o.dir.toAbsolutePath().normalize());   // one of them not there yet
            }
        }
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
        @Override public boolean isFile(String name) { return io(() -> fs.exists(child(name)) && !fs.isFolder(child(name))); }
        @Override public boolean writable() { return true; }
        @Override public String child(String name) { return uri.replaceAll("/+$", "") + "/" + name; }
        @Override public boolean sameAs(Folder other) { return other instanceof RemoteFolder o && uri.replaceAll("/+$", "").equals(o.uri.replaceAll("/+$", "")); }

        @Override
        public String name() {
            String u = uri.replaceAll("/+$", "");
            return u.substring(u.lastIndexOf('/') + 1);
        }

        @Override
        public Folder parent() {
            String u = uri.replaceAll("/+$", "");
            int slash = u.lastIndexOf('/');
            // scheme://authority/ is the root: no parent above it
            return slash < 0 || u.substring(0, slash).endsWith("/") || u.substring(0, slash).endsWith(":") ? null : new RemoteFolder(u.substring(0, slash), fs);
        }
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
