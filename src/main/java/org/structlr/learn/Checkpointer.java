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

/**
 * Saves the learner's state into a checkpoint folder after every {@code every}-th iteration and after
 * the last. Each save is a complete folder {@code iteration-NNNNNN} that appears by one rename;
 * older ones are deleted only after it is in place, so a run killed at any moment leaves at least
 * one complete checkpoint, and {@link #latest} is the newest.
 */
public final class Checkpointer implements StateSink {
    private static final Pattern NAME = Pattern.compile("iteration-(\\d{6,})");
    /** Leftovers of a save that was killed ({@link AtomicFiles#replaceFolder}'s temporaries). */
    private static final Pattern LEFTOVER = Pattern.compile("\\.iteration-\\d{6,}\\.(tmp|old)-.*");

    private final Path dir;
    private final int every;
    private final String unaryKind, pairKind;
    private final LearnSettings settings;
    private final int threads;
    private final String dataHash;

    public Checkpointer(Path dir, int every, String unaryKind, String pairKind, LearnSettings settings, int threads, String dataHash) {
        if (every < 1) throw new IllegalArgumentException("checkpoints every " + every + " iterations: need at least 1");
        this.dir = dir;
        this.every = every;
        this.unaryKind = unaryKind;
        this.pairKind = pairKind;
        this.settings = settings;
        this.threads = threads;
        this.dataHash = dataHash;
    }

    @Override
    public boolean wants(int iteration, int total) {
        return iteration % every == 0 || iteration == total;
    }

    @Override
    public void accept(LearnerState state) throws IOException {
        Path target = dir.resolve(String.format(Locale.ROOT, "iteration-%06d", state.iteration()));
        new Checkpoint(unaryKind, pairKind, settings, threads, dataHash, state).save(target);
        for (Path p : entries(dir)) {
            String n = p.getFileName().toString();
            if ((NAME.matcher(n).matches() && !p.equals(target)) || LEFTOVER.matcher(n).matches()) AtomicFiles.deleteTree(p);
        }
    }

    /**
     * Refuses, before any training, a checkpoint folder that cannot be ours: an existing file, or a
     * folder holding anything but checkpoints.
     */
    public static void checkWritable(Path dir) {
        if (!Files.exists(dir)) return;
        if (!Files.isDirectory(dir)) throw new BadInputException(dir, "cannot write --checkpoint: exists and is a file, not a folder");
        for (Path p : entries(dir)) {
            String n = p.getFileName().toString();
            if (!NAME.matcher(n).matches() && !LEFTOVER.matcher(n).matches()) {
                throw new BadInputException(dir, "cannot write --checkpoint: the folder holds " + n + ", which is not a structlr checkpoint; not writing into it");
            }
        }
    }

    /** The newest complete checkpoint folder under {@code dir}. */
    static Path latest(Path dir) {
        if (!Files.isDirectory(dir)) throw new BadInputException(dir, "no such checkpoint folder");
        Path best = null;
        long bestIt = -1;
        for (Path p : entries(dir)) {
            var m = NAME.matcher(p.getFileName().toString());
            if (m.matches() && Files.isDirectory(p) && Long.parseLong(m.group(1)) > bestIt) {
                best = p;
                bestIt = Long.parseLong(m.group(1));
            }
        }
        if (best == null) throw new BadInputException(dir, "not a structlr checkpoint (no " + Checkpoint.MANIFEST + ", no iteration-NNNNNN folder)");
        return best;
    }

    private static List<Path> entries(Path dir) {
        if (!Files.isDirectory(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        } catch (IOException e) {
            throw new BadInputException(dir, "cannot list: " + e.getMessage(), e);
        }
    }
}
