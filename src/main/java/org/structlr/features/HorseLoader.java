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
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;

/**
 * Reads the Weizmann horse database (DESIGN §1): {@code rgb/horseNNN.jpg} paired with
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
    /** The data set folder relative to the working directory (the project root). */
    public static final Path DEFAULT_DB = Path.of("..", "shared", "data", "weizmann_horse_db");
    public static final int DEFAULT_HEIGHT = 36;
    public static final int DEFAULT_WIDTH = 48;
    /** Mask values at or above this are horse. */
    public static final int MASK_THRESHOLD = 128;
    /** The name of the description file written beside train/ and test/. */
    public static final String INFO_FILE = Dataset.INFO_FILE;

    private static final Pattern NAME = Pattern.compile("horse(\\d+)\\.(jpg|jpeg|png)", Pattern.CASE_INSENSITIVE);

    private final Path db;
    private final WorkingSize size;

    /** The default folder and working size. */
    public HorseLoader() {
        this(DEFAULT_DB, DEFAULT_HEIGHT, DEFAULT_WIDTH);
    }

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

    /** Loads one image and its mask at its working size ({@link WorkingSize#shapeOf} of the colour image's own size). */
    public HorseImage load(Path rgbFile) {
        Path maskFile = maskFile(rgbFile);
        if (!Files.isRegularFile(rgbFile)) throw new BadInputException(rgbFile, "missing image file");
        if (!Files.isRegularFile(maskFile)) throw new BadInputException(maskFile, "missing mask for " + rgbFile.getFileName());
        ImageDecoder.Decoded img = ImageDecoder.decode(rgbFile, 3);
        ImageDecoder.Decoded mask = ImageDecoder.decode(maskFile, 1);
        long lhs = (long) mask.width() * img.height(), rhs = (long) mask.height() * img.width();
        if (Math.abs(lhs - rhs) > img.width() + img.height()) {
            throw new BadInputException(maskFile, "mask of " + mask.width() + "x" + mask.height() + " (width x height) does not fit its image "
                    + rgbFile.getFileName() + " of " + img.width() + "x" + img.height() + " (another size: not the same shape scaled)");
        }
        int[] hw = size.shapeOf(img.height(), img.width());
        int height = hw[0], width = hw[1];
        float[] rgb = img.rgb(height, width);
        int[] labels = threshold(mask.resized(0, height, width));
        return new HorseImage(number(rgbFile), rgbFile, height, width, rgb, labels);
    }

    /** Every image with its mask, sorted by number. */
    public List<HorseImage> loadAll() {
        List<HorseImage> out = new ArrayList<>();
        for (Path f : imageFiles()) out.add(load(f));
        return out;
    }

    /** The whole data set in memory: odd numbers train, even numbers test, with the given unary features. */
    public Dataset dataset(UnaryFeatures unary) {
        List<Example> train = new ArrayList<>(), test = new ArrayList<>();
        for (Path f : imageFiles()) {
            Example ex = ImageFeatures.example(load(f), unary);
            (isTrain(number(f)) ? train : test).add(ex);
        }
        if (train.isEmpty()) throw new BadInputException(db.resolve("rgb"), "no training image (odd number) in this folder");
        return Dataset.of(train, test, List.of());
    }

    /**
     * Writes the data set as a DESIGN §4 folder into the empty or new folder {@code dir}:
     * {@code train/horseNNN.npz} (odd numbers), {@code test/horseNNN.npz} (even numbers) and
     * {@value #INFO_FILE} describing how it was made. One image at a time, so that wide patch
     * features never sit in memory all at once. Wrap it in {@link AtomicFiles#replaceFolder} for an
     * atomic result.
     *
     * @param log receives one line per 50 images and a summary (may be null)
     * @return the counts {@code [train, test]}
     */
    public int[] writeDataset(Path dir, UnaryFeatures unary, Consumer<String> log) throws IOException {
        List<Path> files = imageFiles();
        Files.createDirectories(dir.resolve("train"));
        Files.createDirectories(dir.resolve("test"));
        int nTrain = 0, nTest = 0;
        long t0 = System.nanoTime();
        for (int k = 0; k < files.size(); k++) {
            Path f = files.get(k);
            int n = number(f);
            String split = isTrain(n) ? "train" : "test";
            Example ex = ImageFeatures.example(load(f), unary);
            ExampleIO.write(dir.resolve(split).resolve(String.format("horse%03d.npz", n)), ex);
            if (isTrain(n)) nTrain++;
            else nTest++;
            if (log != null && ((k + 1) % 50 == 0 || k + 1 == files.size())) {
                log.accept(String.format("%d/%d images (%.1f s)", k + 1, files.size(), (System.nanoTime() - t0) / 1e9));
            }
        }
        if (nTrain == 0) throw new BadInputException(db.resolve("rgb"), "no training image (odd number) in this folder");
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("source", db.toAbsolutePath().normalize().toString());
        info.putAll(size.recipe());
        info.put("resize", size.description());
        info.put("mask_threshold", MASK_THRESHOLD);
        info.put("labels", "1 = horse, 0 = background");
        info.put("split", "odd image numbers train, even numbers test");
        info.put("train", nTrain);
        info.put("test", nTest);
        info.put("unary_features", unary.name());
        info.put("unary_dim", unary.dim());
        info.put("unary_description", unary.toString());
        if (unary instanceof ImageFeatures f) info.put("cell", f.cell());
        if (unary instanceof PatchFeatures f) info.put("patch", f.k());
        info.put("pairwise_dim", ImageFeatures.PAIR_DIM);
        info.put("pairwise_description", "1, l2 RGB distance, mean Sobel magnitude of the two pixels (luma, /4)");
        info.put("edge_type", "0 = horizontal, 1 = vertical (Grids.grid order)");
        String json = new com.fasterxml.jackson.databind.ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(info);
        AtomicFiles.writeString(dir.resolve(INFO_FILE), json + "\n");
        return new int[] {nTrain, nTest};
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
