package org.structlr.features;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import org.structlr.augment.Augmentation;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.ClassTable;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;

/**
 * Writes labelled images as a docs/design.md §4 data set folder: {@code train/}, {@code val/} (when it has
 * examples), {@code test/}, one {@code NAME.npz} per image (features of {@link UnaryFeatures}, the
 * 3 hand-made edge features, labels with {@link Example#VOID} for void pixels, num_labels, shape,
 * edge types), and {@link Dataset#INFO_FILE}: how it was made and the class table. One image at a
 * time, so wide features never sit in memory all at once. Wrap it in
 * {@link AtomicFiles#replaceFolder} for an atomic result.
 *
 * <p>An image whose every pixel is void at the working size teaches and measures nothing: it is
 * left out and counted (Cityscapes' public test masks are such). When the test split ends up
 * empty, the val split becomes the test split (notes say so); a data set needs training and test
 * examples. Augmented copies ({@code NAME-augK.npz}, training images only) are drawn per image
 * and copy from a random source seeded by (seed, name, K): the same whatever the order or the
 * number of images.
 */
public final class ImageDataWriter {
    private final LabelledImageReader reader;
    private final UnaryFeatures unary;
    private final ClassTable classes;

    public ImageDataWriter(LabelledImageReader reader, UnaryFeatures unary) {
        this.reader = reader;
        this.unary = unary;
        this.classes = reader.masks().classes();
    }

    /** Examples written per split (train, val, test), augmented copies included, and the notes. */
    public record Result(Map<String, Integer> counts, int augmented, List<String> notes) {}

    /**
     * @param info  entries of the info file that say where the data came from (the writer adds the
     *              features, sizes, split, counts, notes and class table)
     * @param log   one line per 50 images and a summary (may be null)
     */
    public Result write(Path dir, ImageSplits.Split split, Augmentation augment, int copies, long seed, Map<String, Object> info,
                        Consumer<String> log) throws IOException {
        if (copies < 0) throw new IllegalArgumentException("augmented copies must be at least 0, got " + copies);
        List<String> notes = new ArrayList<>(split.notes());
        Map<String, Integer> counts = new LinkedHashMap<>();
        int total = 0, done = 0, augmented = 0, allVoid = 0;
        for (List<ImageSplits.Pair> l : split.splits().values()) total += l.size();
        long t0 = System.nanoTime();
        for (Map.Entry<String, List<ImageSplits.Pair>> e : split.splits().entrySet()) {
            String name = e.getKey();
            int n = 0;
            for (ImageSplits.Pair p : e.getValue()) {
                LabelledImage img = reader.read(p.name(), p.image(), p.mask());
                if (img.allVoid()) {
                    allVoid++;
                } else {
                    write(dir, name, img);
                    n++;
                    if (name.equals("train")) {
                        for (int k = 1; k <= copies; k++) {
                            Augmentation.Transform t = augment.draw(new Random(mix(seed, p.name(), k)));
                            LabelledImage a = reader.read(p.name() + "-aug" + k, p.image(), p.mask(), t);
                            if (a.allVoid()) continue;
                            write(dir, name, a);
                            n++;
                            augmented++;
                        }
                    }
                }
                done++;
                if (log != null && (done % 50 == 0 || done == total)) {
                    log.accept(String.format("%d/%d images (%.1f s)", done, total, (System.nanoTime() - t0) / 1e9));
                }
            }
            counts.put(name, n);
        }
        if (allVoid > 0) notes.add(allVoid + " images are void everywhere at the working size and are left out");
        if (counts.get("test") == 0 && counts.get("val") > 0) {
            Files.move(dir.resolve("val"), dir.resolve("test"));
            counts.put("test", counts.get("val"));
            counts.put("val", 0);
            notes.add("no test images: the val images are the test split (no val split)");
        }
        if (counts.get("train") == 0) throw new BadInputException(dir + ": no training image with a labelled pixel (" + split.rule() + ")");
        if (counts.get("test") == 0) throw new BadInputException(dir + ": no test or val image with a labelled pixel (" + split.rule() + ")");

        Map<String, Object> out = new LinkedHashMap<>(info);
        out.putAll(reader.size().recipe());
        out.put("resize", reader.size().description());
        out.put("mask_kind", reader.masks().kind().name().toLowerCase(java.util.Locale.ROOT));
        if (reader.masks().kind() == MaskReader.Kind.THRESHOLD) out.put("mask_threshold", reader.masks().threshold());
        else out.put("label_resize", "area-weighted majority of the source pixels (labels never interpolated)");
        out.put("split", split.rule());
        out.putAll(counts);
        if (copies > 0) {
            out.put("augmented_copies", copies);
            out.put("augmentation", augment.describe());
            out.put("augmentation_seed", seed);
        }
        if (!notes.isEmpty()) out.put("notes", notes);
        out.put("unary_features", unary.name());
        out.put("unary_dim", unary.dim());
        out.put("unary_description", unary.toString());
        if (unary instanceof ImageFeatures f) out.put("cell", f.cell());
        if (unary instanceof PatchFeatures f) out.put("patch", f.k());
        out.put("pairwise_dim", ImageFeatures.PAIR_DIM);
        out.put("pairwise_description", "1, l2 RGB distance, mean Sobel magnitude of the two pixels (luma, /4)");
        out.put("edge_type", "0 = horizontal, 1 = vertical (Grids.grid order)");
        out.put(Dataset.CLASSES, classes.toMap());
        String json = new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(out);
        AtomicFiles.writeString(dir.resolve(Dataset.INFO_FILE), json + "\n");
        return new Result(counts, augmented, notes);
    }

    private void write(Path dir, String split, LabelledImage img) throws IOException {
        Example ex = ImageFeatures.example(img, unary, classes.numClasses());
        Path folder = dir.resolve(split);
        Files.createDirectories(folder);
        ExampleIO.write(folder.resolve(img.name() + ".npz"), ex);
    }

    /** The seed of one augmented copy: (seed, image name, copy) mixed by SplitMix64 steps. */
    static long mix(long seed, String name, int copy) {
        long z = seed;
        for (long v : new long[] {name.hashCode(), copy}) {
            z += 0x9E3779B97F4A7C15L + v;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z ^= z >>> 31;
        }
        return z;
    }
}
