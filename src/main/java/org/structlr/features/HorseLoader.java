package org.structlr.features;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.structlr.augment.Augmentation;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.ClassTable;
import org.structlr.data.Dataset;
import org.structlr.data.Example;

/**
 * Reads the Weizmann horse database (docs/design.md §1): {@code rgb/horseNNN.jpg} paired with
 * {@code figure_ground/horseNNN.jpg} (the same file name; {@code .jpeg} and {@code .png} are
 * accepted too, which the tests use for exact pixel values), every pair brought to one working size
 * and the mask thresholded into labels (1 = horse, 0 = background).
 *
 * <p><b>Reading.</b> Images and masks are decoded and area-resized by {@link ImageDecoder}, the
 * same path {@code predict} uses for new images (PNG or JPEG told by content, any bit depth in 8-bit
 * units, and an area resize: each working pixel is the mean of the source pixels it covers, with
 * fractional weights at the borders; bilinear resizing would skip most source pixels at the 5-25x
 * reductions needed here).
 *
 * <p><b>Working size.</b> Every image and mask is resized to the same {@code height x width}
 * (default {@value #DEFAULT_HEIGHT} x {@value #DEFAULT_WIDTH}), ignoring its own aspect ratio.
 * One size for all images is what lets the batched grid engine treat the whole training set as one
 * [N, H, W] tensor; 4:3 is the median aspect ratio of the set (sizes 100x81 to 1280x960, median
 * about 500x390; 297 of 328 are landscape). Why 36 x 48 and not 48 x 64: the whole 5 x 5 table
 * (25 (unary, pairwise) pairs) must train within 3 hours on 2 cores, i.e. about 430 s per pair.
 * Message passing costs ~150 sweeps per learning iteration; at ~10M variable updates/s over 164
 * training images that is 4.3 s per iteration at 36 x 48 (1,728 pixels) but 7.6 s at 48 x 64
 * (3,072 pixels). With ~50 learning iterations per pair, 36 x 48 leaves about half of the budget to
 * the oracles (up to 283k logistic-regression rows per unary fit); 48 x 64 would spend the whole
 * budget on message passing alone. The size is a parameter (CLI {@code --size HxW}).
 *
 * <p><b>Own aspect ratio.</b> With {@link WorkingSize.Longest} (CLI {@code --longest N}) each image
 * keeps its aspect ratio, longest side N; the examples then carry their own shapes and training
 * runs on ragged batches of grids (see docs/wave2/ndgrid.md for what it costs).
 *
 * <p><b>Masks.</b> The masks are JPEG, so values near the outline are not exactly 0 or 255; the
 * mask is area-averaged to the working size like the image and thresholded there: value &gt;= 128
 * is horse (the same as a majority vote of the covered pixels, up to JPEG noise). Note: despite
 * the data set's README, only one mask (horse174) has the size of its colour image; the others are
 * stored at a smaller (a few: larger) scale with the same aspect ratio. A mask is therefore accepted
 * when its size is the image's size scaled by one factor, up to one pixel of rounding per side:
 * {@code |w_m * H - h_m * W| <= W + H} (largest deviation in the set: under one pixel of height).
 * Since both are resized to the same working grid, such a mask stays aligned with its image.
 *
 * <p><b>Split.</b> Odd image numbers (horse001, horse003, ...) are training images, even numbers
 * test images: 164 and 164. A fixed rule that needs no random seed, and interleaving guards
 * against any ordering of the collection (by source or photographer) that a first-half /
 * second-half split would turn into a train/test difference.
 *
 * <p><b>Errors.</b> A missing folder or mask, an unreadable image, or a mask whose size does not
 * fit its image: one {@link BadInputException} naming the file.
 */
public final class HorseLoader {
    public static final int DEFAULT_HEIGHT = 36;
    public static final int DEFAULT_WIDTH = 48;
    /** Mask values at or above this are horse. */
    public static final int MASK_THRESHOLD = 128;
    /** The name of the description file written beside train/ and test/. */
    public static final String INFO_FILE = Dataset.INFO_FILE;

    private static final Pattern NAME = Pattern.compile("horse(\\d+)\\.(jpg|jpeg|png)", Pattern.CASE_INSENSITIVE);

    private final Path db;
    private final WorkingSize size;

    public HorseLoader(Path db) {
        this(db, DEFAULT_HEIGHT, DEFAULT_WIDTH);
    }

    /**
     * @param db     the folder holding {@code rgb/} and {@code figure_ground/}
     * @param height working height in pixels (at least 2)
     * @param width  working width in pixels (at least 2)
     */
    public HorseLoader(Path db, int height, int width) {
        this(db, new WorkingSize.Fixed(height, width));
    }

    /** @param size one working size for all images, or each image's own aspect ratio */
    public HorseLoader(Path db, WorkingSize size) {
        this.db = db;
        this.size = java.util.Objects.requireNonNull(size, "size");
    }

    public Path db() { return db; }
    public WorkingSize size() { return size; }

    /** The split rule: odd image numbers train, even numbers test. */
    public static boolean isTrain(int number) {
        return number % 2 != 0;
    }

    /** The image number NNN of {@code horseNNN.jpg}, or -1 for any other file name. */
    public static int number(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        return m.matches() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The colour images {@code rgb/horseNNN.*}, sorted by number. */
    public List<Path> imageFiles() {
        if (!Files.isDirectory(db)) throw new BadInputException(db, "missing folder: no horse data set here (expected rgb/ and figure_ground/)");
        Path rgb = db.resolve("rgb");
        if (!Files.isDirectory(rgb)) throw new BadInputException(rgb, "missing folder: the horse data set needs rgb/ and figure_ground/");
        List<Path> files;
        try (Stream<Path> s = Files.list(rgb)) {
            files = s.filter(p -> number(p) >= 0 && Files.isRegularFile(p))
                    .sorted((a, b) -> Integer.compare(number(a), number(b)))
                    .toList();
        } catch (IOException ex) {
            throw new BadInputException(rgb, "cannot list folder: " + ex, ex);
        }
        if (files.isEmpty()) throw new BadInputException(rgb, "no horseNNN.jpg images in this folder");
        for (int k = 1; k < files.size(); k++) {
            if (number(files.get(k)) == number(files.get(k - 1))) {
                throw new BadInputException(files.get(k), "image number repeats " + files.get(k - 1).getFileName());
            }
        }
        return files;
    }

    /** The mask file of a colour image: the same file name under {@code figure_ground/}. */
    public Path maskFile(Path rgbFile) {
        return db.resolve("figure_ground").resolve(rgbFile.getFileName().toString());
    }

    /** The horse masks: figure/ground thresholded at {@value #MASK_THRESHOLD}; classes background (0) and horse (1). */
    public static MaskReader masks() {
        ClassTable classes = ClassTable.fromObject(List.of(
                Map.of("name", "background", "index", 0, "color", List.of(0, 0, 0)),
                Map.of("name", "horse", "index", 1, "color", List.of(255, 255, 255))), "horses");
        return new MaskReader(MaskReader.Kind.THRESHOLD, classes, MASK_THRESHOLD);
    }

    /** The name of an image's example: {@code horseNNN}. */
    private static String name(Path rgbFile) {
        return String.format("horse%03d", number(rgbFile));
    }

    /** Loads one image and its mask at its working size ({@link WorkingSize#shapeOf} of the colour image's own size). */
    public LabelledImage load(Path rgbFile) {
        return new LabelledImageReader(masks(), size).read(name(rgbFile), rgbFile, maskFile(rgbFile));
    }

    /** Every image with its mask, sorted by number. */
    public List<LabelledImage> loadAll() {
        List<LabelledImage> out = new ArrayList<>();
        for (Path f : imageFiles()) out.add(load(f));
        return out;
    }

    /** The whole data set in memory: odd numbers train, even numbers test, with the given unary features. */
    public Dataset dataset(UnaryFeatures unary) {
        List<Example> train = new ArrayList<>(), test = new ArrayList<>();
        for (Path f : imageFiles()) {
            Example ex = ImageFeatures.example(load(f), unary, 2);
            (isTrain(number(f)) ? train : test).add(ex);
        }
        if (train.isEmpty()) throw new BadInputException(db.resolve("rgb"), "no training image (odd number) in this folder");
        return Dataset.of(train, test, List.of());
    }

    /**
     * The horses as {@code images-data} sees them: each colour image paired with its mask, odd
     * numbers train and even numbers test.
     */
    public ImageSplits.Split split() {
        Map<String, List<ImageSplits.Pair>> splits = new LinkedHashMap<>();
        for (String s : ImageSplits.NAMES) splits.put(s, new ArrayList<>());
        for (Path f : imageFiles()) {
            Path mask = maskFile(f);
            if (!Files.isRegularFile(mask)) throw new BadInputException(mask, "missing mask for " + f.getFileName());
            splits.get(isTrain(number(f)) ? "train" : "test").add(new ImageSplits.Pair(name(f), f, mask));
        }
        if (splits.get("train").isEmpty()) throw new BadInputException(db.resolve("rgb"), "no training image (odd number) in this folder");
        return new ImageSplits.Split(splits, "odd image numbers train, even numbers test", List.of());
    }

    /**
     * Writes the data set as a docs/design.md §4 folder into the empty or new folder {@code dir}:
     * {@code train/horseNNN.npz} (odd numbers), {@code test/horseNNN.npz} (even numbers) and
     * {@value #INFO_FILE} describing how it was made, through {@link ImageDataWriter} (the writer of
     * {@code images-data}: horses are the special case of thresholded masks and a fixed split).
     * Wrap it in {@link AtomicFiles#replaceFolder} for an atomic result.
     *
     * @param log receives one line per 50 images and a summary (may be null)
     * @return the counts {@code [train, test]}
     */
    public int[] writeDataset(Path dir, UnaryFeatures unary, Consumer<String> log) throws IOException {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("source", db.toAbsolutePath().normalize().toString());
        info.put("labels", "1 = horse, 0 = background");
        ImageDataWriter.Result r = new ImageDataWriter(new LabelledImageReader(masks(), size), unary)
                .write(dir, split(), Augmentation.NONE, 0, 0, info, log);
        return new int[] {r.counts().get("train"), r.counts().get("test")};
    }

    // ------------------------------------------------------------------------------------------

    /** Labels from mask values: 1 where the value is at least {@value #MASK_THRESHOLD}, else 0. */
    public static int[] threshold(float[] mask) {
        int[] y = new int[mask.length];
        for (int i = 0; i < mask.length; i++) y[i] = mask[i] >= MASK_THRESHOLD ? 1 : 0;
        return y;
    }

    /** Area resize of one row-major plane: {@link ImageDecoder#resizeArea}. */
    public static float[] resizeArea(float[] src, int sh, int sw, int th, int tw) {
        return ImageDecoder.resizeArea(src, sh, sw, th, tw);
    }
}
