package org.structlr.features;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.structlr.data.BadInputException;

/**
 * Which image goes with which mask, and which split each pair is in, for {@code images-data}.
 *
 * <p><b>Pairs.</b> Images ({@code .png}, {@code .jpg}, {@code .jpeg}) and masks are found in
 * their folders and below; each file's <em>key</em> is its path under its folder without the
 * extension and without a given suffix ({@code _leftImg8bit}, {@code _gtFine_labelIds} for
 * Cityscapes), and an image and a mask with the same key are a pair. Pascal VOC 2012
 * ({@code JPEGImages/NAME.jpg}, {@code SegmentationClass/NAME.png}) and Cityscapes
 * ({@code leftImg8bit/SPLIT/CITY/NAME_leftImg8bit.png}, {@code gtFine/SPLIT/CITY/NAME_gtFine_labelIds.png})
 * pair as they are. Every mask needs its image (else an error naming the mask); images without a
 * mask are left out and counted (VOC has 17,125 photos and 2,913 masks). An example is named by the
 * last part of its key, which must be unique.
 *
 * <p><b>Splits</b>, one of: lists ({@code train.txt}, {@code val.txt}, {@code test.txt} in one
 * folder, one name per line without extension: VOC's ImageSets/Segmentation convention; a name is
 * a key or the last part of one; pairs in no list are left out); the first folder of the key
 * ({@code train/}, {@code val/}, {@code test/}: Cityscapes); or fractions of a seeded shuffle of
 * the pairs sorted by key. Without a test list (VOC publishes no test masks) the val list is the
 * test split, and the notes say so.
 */
public final class ImageSplits {
    /** The names of the splits, in the order they are written. */
    public static final List<String> NAMES = List.of("train", "val", "test");

    private ImageSplits() {}

    /** An image and its mask; {@code key} is their shared path without extension and suffix. */
    public record Pair(String key, Path image, Path mask) {
        /** The example's name: the last part of the key. */
        public String name() {
            return key.substring(key.lastIndexOf('/') + 1);
        }
    }

    /** Pairs by split ({@link #NAMES} order; empty splits kept), how they were split, and what a user should know. */
    public record Split(Map<String, List<Pair>> splits, String rule, List<String> notes) {}

    /**
     * The pairs of {@code images} and {@code masks}, sorted by key.
     *
     * @param notes receives what was left out (images without a mask)
     * @throws BadInputException a missing folder, no masks, a mask without image, two files with one key or name
     */
    public static List<Pair> pair(Path images, Path masks, String imageSuffix, String maskSuffix, List<String> notes) {
        Map<String, Path> img = keys(images, imageSuffix, "images"), msk = keys(masks, maskSuffix, "masks");
        if (msk.isEmpty()) throw new BadInputException(masks, "no masks (.png, .jpg, .jpeg) in this folder" + suffixHint(maskSuffix));
        List<Pair> out = new ArrayList<>();
        Map<String, String> byName = new HashMap<>();
        for (Map.Entry<String, Path> m : msk.entrySet()) {
            Path i = img.get(m.getKey());
            if (i == null) {
                throw new BadInputException(m.getValue(), "mask without an image: no " + m.getKey() + imageSuffix + ".png/.jpg/.jpeg under "
                        + images + suffixHint(imageSuffix));
            }
            Pair p = new Pair(m.getKey(), i, m.getValue());
            String other = byName.putIfAbsent(p.name(), p.key());
            if (other != null) {
                throw new BadInputException(m.getValue(), "two pairs have the example name " + p.name() + " (" + other + " and " + p.key()
                        + "): example names must be unique");
            }
            out.add(p);
        }
        int unpaired = img.size() - out.size();
        if (unpaired > 0) notes.add(unpaired + " of " + img.size() + " images have no mask and are left out");
        return out;
    }

    private static String suffixHint(String suffix) {
        return suffix.isEmpty() ? "" : " (file names ending in '" + suffix + "' before the extension)";
    }

    /** Key -> file of every image file under {@code dir}. */
    private static Map<String, Path> keys(Path dir, String suffix, String what) {
        if (!Files.isDirectory(dir)) throw new BadInputException(dir, "missing folder: no " + what + " here");
        Map<String, Path> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) s.filter(Files::isRegularFile).filter(ImageReader::isImageFile).sorted()::iterator) {
                String rel = dir.relativize(f).toString().replace('\\', '/');
                String key = rel.substring(0, rel.lastIndexOf('.'));
                if (!suffix.isEmpty()) {
                    if (!key.endsWith(suffix)) continue;
                    key = key.substring(0, key.length() - suffix.length());
                }
                Path before = out.put(key, f);
                if (before != null) throw new BadInputException(f, "has the same name as " + before.getFileName() + " (one " + what + " file per name)");
            }
        } catch (IOException e) {
            throw new BadInputException(dir, "cannot list folder: " + e.getMessage(), e);
        }
        return out;
    }

    /**
     * Splits by {@code train.txt}, {@code val.txt}, {@code test.txt} in {@code lists}.
     *
     * @throws BadInputException no train.txt, a name that is no pair, a name in two lists
     */
    public static Split byLists(List<Pair> pairs, Path lists) {
        if (!Files.isDirectory(lists)) throw new BadInputException(lists, "missing folder: no split lists here (train.txt, val.txt, test.txt)");
        Map<String, Pair> byKey = new HashMap<>();
        Map<String, List<Pair>> byName = new HashMap<>();
        for (Pair p : pairs) {
            byKey.put(p.key(), p);
            byName.computeIfAbsent(p.name(), n -> new ArrayList<>()).add(p);
        }
        Map<String, List<Pair>> out = empty();
        Map<String, String> listed = new HashMap<>();
        List<String> notes = new ArrayList<>();
        for (String split : NAMES) {
            Path f = lists.resolve(split + ".txt");
            if (!Files.isRegularFile(f)) {
                if (split.equals("train")) throw new BadInputException(f, "missing: the training list is required");
                continue;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(f);
            } catch (IOException e) {
                throw new BadInputException(f, "cannot read: " + e.getMessage(), e);
            }
            for (int n = 0; n < lines.size(); n++) {
                String name = lines.get(n).trim();
                if (name.isEmpty() || name.startsWith("#")) continue;
                name = name.split("\\s+")[0];   // VOC's classification lists carry a second column
                Pair p = byKey.get(name);
                if (p == null) {
                    List<Pair> same = byName.getOrDefault(name, List.of());
                    if (same.size() > 1) throw new BadInputException(f, "line " + (n + 1) + ": " + name + " names " + same.size() + " pairs; give the path");
                    if (same.isEmpty()) throw new BadInputException(f, "line " + (n + 1) + ": " + name + " is no image with a mask");
                    p = same.get(0);
                }
                String before = listed.putIfAbsent(p.key(), split);
                if (before != null) {
                    if (before.equals(split)) throw new BadInputException(f, "line " + (n + 1) + ": " + name + " is listed twice");
                    throw new BadInputException(f, "line " + (n + 1) + ": " + name + " is also in " + before + ".txt");
                }
                out.get(split).add(p);
            }
        }
        int left = pairs.size() - listed.size();
        if (left > 0) notes.add(left + " pairs are in no list and are left out");
        return new Split(out, "lists " + lists.toAbsolutePath().normalize() + " (train.txt, val.txt, test.txt)", notes);
    }

    /**
     * Splits by the first folder of each key: {@code train/}, {@code val/}, {@code test/}.
     *
     * @throws BadInputException a pair outside these folders
     */
    public static Split byFolders(List<Pair> pairs) {
        Map<String, List<Pair>> out = empty();
        for (Pair p : pairs) {
            int slash = p.key().indexOf('/');
            String first = slash < 0 ? "" : p.key().substring(0, slash);
            if (!NAMES.contains(first)) {
                throw new BadInputException(p.mask(), "is not under a train/, val/ or test/ folder (--split-folders takes the split from the first folder)");
            }
            out.get(first).add(p);
        }
        return new Split(out, "the first folder of each file: train/, val/, test/", new ArrayList<>());
    }

    /**
     * Splits the pairs, sorted by key and shuffled with {@code seed}, into fractions: the first
     * round(train n) train, the next round(val n) val, the rest test.
     */
    public static Split byFractions(List<Pair> pairs, double train, double val, double test, long seed) {
        double sum = train + val + test;
        if (!(train > 0 && val >= 0 && test > 0 && Math.abs(sum - 1) < 1e-6)) {
            throw new BadInputException("option '--split' must be three fractions train,val,test with train and test above 0, summing to 1; got "
                    + String.format(Locale.ROOT, "%s,%s,%s", train, val, test));
        }
        List<Pair> order = new ArrayList<>(pairs);
        order.sort((a, b) -> a.key().compareTo(b.key()));
        Collections.shuffle(order, new Random(seed));
        int n = order.size(), nTrain = (int) Math.round(train * n), nVal = (int) Math.round(val * n);
        nTrain = Math.max(1, Math.min(nTrain, n - 1));
        nVal = Math.max(0, Math.min(nVal, n - nTrain - 1));
        Map<String, List<Pair>> out = empty();
        out.get("train").addAll(order.subList(0, nTrain));
        out.get("val").addAll(order.subList(nTrain, nTrain + nVal));
        out.get("test").addAll(order.subList(nTrain + nVal, n));
        return new Split(out, String.format(Locale.ROOT, "a shuffle with seed %d: %s train, %s val, %s test", seed, train, val, test), new ArrayList<>());
    }

    private static Map<String, List<Pair>> empty() {
        Map<String, List<Pair>> out = new LinkedHashMap<>();
        for (String s : NAMES) out.put(s, new ArrayList<>());
        return out;
    }
}
