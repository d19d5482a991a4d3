package org.structlr.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.structlr.augment.Augmentation;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.data.ClassTable;
import org.structlr.data.Dataset;
import org.structlr.features.ImageDataWriter;
import org.structlr.features.ImageSplits;
import org.structlr.features.LabelledImageReader;
import org.structlr.features.MaskReader;
import org.structlr.features.UnaryFeatures;
import org.structlr.features.WorkingSize;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "images-data", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Turn a folder of images and a folder of segmentation masks into an .npz data set (train/, val/, test/).",
                "Masks: 8-bit class-index PNGs (grey or palette; Pascal VOC's SegmentationClass, Cityscapes' *_labelIds.png as they are),",
                "colour PNGs mapped by --classes, or figure/ground masks by --mask-threshold. Void pixels (--void, default 255) get label -1.",
                "Images and masks are paired by name (path without extension and --image-suffix / --mask-suffix); splits come from",
                "--lists, --split-folders or a seeded --split. Images are area-averaged to the working size, masks by a majority vote."})
final class ImagesDataCommand implements Callable<Integer> {
    @Option(names = "--images", required = true, paramLabel = "DIR", description = "Folder of images (.png, .jpg, .jpeg), searched with its sub-folders.")
    Path images;

    @Option(names = "--masks", required = true, paramLabel = "DIR", description = "Folder of masks, one per image, same name (and sub-folder).")
    Path masks;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Data set folder to write (replaced as a whole if it was written by this command).")
    Path out;

    @Option(names = "--classes", paramLabel = "FILE.json",
            description = "Class table: {\"classes\": [{\"name\", \"index\", \"color\", \"values\"}...], \"void\": {\"color\", \"values\"}}"
                    + " (or the list with a \"void\": true entry). Without it: classes 0..L-1 found in the masks, VOC's palette colours.")
    Path classes;

    @Option(names = "--void", paramLabel = "V", description = "The mask value of void pixels (default: the class table's, else 255).")
    Integer voidValue;

    @Option(names = "--mask-kind", defaultValue = "auto", paramLabel = "KIND",
            description = "auto (palette and grey PNGs: index, RGB: color), index or color (default: ${DEFAULT-VALUE}).")
    String maskKind;

    @Option(names = "--mask-threshold", paramLabel = "T",
            description = "Figure/ground masks (grey, JPEG allowed): area-averaged like the image, value >= T is class 1 (the horses: 128).")
    Integer maskThreshold;

    @Option(names = "--image-suffix", defaultValue = "", paramLabel = "S", description = "Image file names end in S before the extension (Cityscapes: _leftImg8bit).")
    String imageSuffix;

    @Option(names = "--mask-suffix", defaultValue = "", paramLabel = "S", description = "Mask file names end in S before the extension (Cityscapes: _gtFine_labelIds).")
    String maskSuffix;

    @Option(names = "--lists", paramLabel = "DIR",
            description = "Split lists train.txt, val.txt, test.txt (one image name per line, no extension: VOC's ImageSets/Segmentation)."
                    + " Without test.txt the val list is the test split.")
    Path lists;

    @Option(names = "--split-folders", description = "The split is the first folder of each file: train/, val/, test/ (Cityscapes).")
    boolean splitFolders;

    @Option(names = "--split", paramLabel = "a,b,c",
            description = "Fractions train,val,test of a seeded shuffle of the pairs (default when no --lists or --split-folders: 0.8,0.1,0.1).")
    String split;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of --split's shuffle and of the augmentation (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--longest", paramLabel = "N",
            description = "Keep each image's aspect ratio with its longest side N pixels (default: 96 unless --size or --own-size).")
    Integer longest;

    @Option(names = "--size", paramLabel = "HxW", description = "One working size for every image, height x width (aspect ratio not kept).")
    String size;

    @Option(names = "--own-size", description = "Every image at its own size (no resizing).")
    boolean ownSize;

    @Mixin
    FeatureOptions features;

    @Option(names = "--augment", defaultValue = "0", paramLabel = "N",
            description = "Add N augmented copies of every training image (NAME-augK.npz) with the transforms below (default: ${DEFAULT-VALUE}).")
    int augment;

    @Option(names = "--flip", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Augmentation: a horizontal flip with probability 1/2 (default: on; --no-flip).")
    boolean flip;

    @Option(names = "--crop", defaultValue = "1", paramLabel = "F",
            description = "Augmentation: crop a random fraction in [F, 1] of each side (default: ${DEFAULT-VALUE}: no crop).")
    double crop;

    @Option(names = "--scale", defaultValue = "1,1", paramLabel = "a,b",
            description = "Augmentation: multiply the working size by a log-uniform factor in [a, b] (default: ${DEFAULT-VALUE}).")
    String scale;

    @Option(names = "--jitter", defaultValue = "0", paramLabel = "J",
            description = "Augmentation: brightness, contrast and saturation factors in [1 - J, 1 + J] (default: ${DEFAULT-VALUE}).")
    double jitter;

    @Option(names = "--quiet", description = "Print no progress, only the result and errors.")
    boolean quiet;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        WorkingSize ws = workingSize();
        UnaryFeatures unary = features.unary();
        Augmentation aug = augmentation();
        CliChecks.output("--out", out, true);
        checkNotInside(images, "--images");
        checkNotInside(masks, "--masks");
        List<String> notes = new ArrayList<>();
        List<ImageSplits.Pair> pairs = ImageSplits.pair(images, masks, imageSuffix, maskSuffix, notes);
        ImageSplits.Split s = splits(pairs);
        s.notes().addAll(0, notes);
        MaskReader reader = new MaskReader(kind(), classTable(s), maskThreshold == null ? 0 : maskThreshold);
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("images", images.toAbsolutePath().normalize().toString());
        info.put("masks", masks.toAbsolutePath().normalize().toString());
        long t0 = System.nanoTime();
        ImageDataWriter.Result[] r = new ImageDataWriter.Result[1];
        AtomicFiles.replaceFolder(out, dir -> r[0] = new ImageDataWriter(new LabelledImageReader(reader, ws), unary)
                .write(dir, s, aug, augment, seed, info, quiet ? null : spec.commandLine().getErr()::println), ImagesDataCommand::isOurs);
        for (String n : r[0].notes()) spec.commandLine().getErr().println("note: " + n);
        Map<String, Integer> c = r[0].counts();
        spec.commandLine().getOut().printf(Locale.ROOT, "%d train%s, %d val and %d test images, %d classes (%s), %s unary features (%d per pixel),"
                        + " 3 edge features: %s (%.1f s)%n", c.get("train"), r[0].augmented() > 0 ? " (" + r[0].augmented() + " augmented copies)" : "",
                c.get("val"), c.get("test"), reader.classes().numClasses(), ws.description(), unary.name(), unary.dim(), out,
                (System.nanoTime() - t0) / 1e9);
        return Main.EXIT_OK;
    }

    /** Reading a folder inside the output would lose it when the output is replaced. */
    private void checkNotInside(Path in, String option) {
        Path o = out.toAbsolutePath().normalize(), i = in.toAbsolutePath().normalize();
        if (i.startsWith(o)) throw new BadInputException(out, "cannot write --out: it holds " + option + " " + in + " (the input would be replaced)");
    }

    private ImageSplits.Split splits(List<ImageSplits.Pair> pairs) {
        int ways = (lists != null ? 1 : 0) + (splitFolders ? 1 : 0) + (split != null ? 1 : 0);
        if (ways > 1) throw new BadInputException("options '--lists', '--split-folders' and '--split' exclude each other: give one way to split");
        if (lists != null) return ImageSplits.byLists(pairs, lists);
        if (splitFolders) return ImageSplits.byFolders(pairs);
        double[] f = numbers("--split", split == null ? "0.8,0.1,0.1" : split, 3);
        return ImageSplits.byFractions(pairs, f[0], f[1], f[2], seed);
    }

    private MaskReader.Kind kind() {
        if (maskThreshold != null) {
            if (spec.commandLine().getParseResult().hasMatchedOption("--mask-kind")) {
                throw new BadInputException("option '--mask-threshold' cannot be used with '--mask-kind': thresholded masks are grey figure/ground masks");
            }
            if (maskThreshold < 1 || maskThreshold > 255) throw new BadInputException("option '--mask-threshold' must be 1..255, got " + maskThreshold);
            return MaskReader.Kind.THRESHOLD;
        }
        return switch (maskKind) {
            case "auto" -> MaskReader.Kind.AUTO;
            case "index" -> MaskReader.Kind.INDEX;
            case "color", "colour" -> MaskReader.Kind.COLOR;
            default -> throw new BadInputException("option '--mask-kind' must be auto, index or color, got '" + maskKind + "'");
        };
    }

    /**
     * The class table: --classes (with --void replacing its void values), figure/ground for
     * --mask-threshold, else classes 0..L-1 with L = 1 + the largest non-void value in the masks.
     */
    private ClassTable classTable(ImageSplits.Split s) {
        if (voidValue != null && (voidValue < 0 || voidValue > ClassTable.MAX_VALUE)) {
            throw new BadInputException("option '--void' must be 0.." + ClassTable.MAX_VALUE + ", got " + voidValue);
        }
        if (classes != null) {
            ClassTable t;
            try {
                t = ClassTable.fromJson(new com.fasterxml.jackson.databind.ObjectMapper().readTree(classes.toFile()), classes.toString(), voidValue);
            } catch (IOException e) {
                if (!Files.isRegularFile(classes)) throw new BadInputException(classes, "no such class table file");
                throw new BadInputException(classes, "cannot be read as JSON: " + e.getMessage().lines().findFirst().orElse(""));
            }
            if (maskThreshold != null && t.numClasses() != 2) {
                throw new BadInputException(classes, "has " + t.numClasses() + " classes; --mask-threshold makes 2 (background, figure)");
            }
            return t;
        }
        if (maskThreshold != null) return ClassTable.numbered(2, voidValue == null ? ClassTable.DEFAULT_VOID : voidValue);
        int v = voidValue == null ? ClassTable.DEFAULT_VOID : voidValue;
        BitSet seen = new BitSet();
        for (List<ImageSplits.Pair> l : s.splits().values()) for (ImageSplits.Pair p : l) seen.or(MaskReader.indexValues(p.mask()));
        seen.clear(v);
        int max = seen.length() - 1;
        if (max < 1) throw new BadInputException(masks, "the masks hold " + (max < 0 ? "no class value" : "only class 0") + " (void " + v + "); at least 2 classes are needed");
        if (!quiet) spec.commandLine().getErr().printf("classes 0..%d found in the masks (void %d); name them with --classes FILE.json%n", max, v);
        return ClassTable.numbered(max + 1, v);
    }

    private Augmentation augmentation() {
        if (augment < 0) throw new BadInputException("option '--augment' must be at least 0, got " + augment);
        double[] sc = numbers("--scale", scale, 2);
        try {
            Augmentation a = new Augmentation(flip, crop, sc[0], sc[1], jitter);
            if (augment > 0 && !a.active()) throw new BadInputException("option '--augment' needs a transform: --flip, --crop, --scale or --jitter");
            return a;
        } catch (IllegalArgumentException e) {
            throw new BadInputException("augmentation: " + e.getMessage());
        }
    }

    private static double[] numbers(String option, String text, int n) {
        String[] parts = text.split(",");
        if (parts.length != n) throw new BadInputException("option '" + option + "' must be " + n + " numbers separated by commas, got '" + text + "'");
        double[] out = new double[n];
        for (int k = 0; k < n; k++) {
            try {
                out[k] = Double.parseDouble(parts[k].trim());
            } catch (NumberFormatException e) {
                throw new BadInputException("option '" + option + "': '" + parts[k] + "' is not a number");
            }
            if (!Double.isFinite(out[k])) throw new BadInputException("option '" + option + "': " + parts[k] + " is not finite");
        }
        return out;
    }

    /** --longest N, --size HxW or --own-size (one of them; default --longest 96). */
    private WorkingSize workingSize() {
        int given = (longest != null ? 1 : 0) + (size != null ? 1 : 0) + (ownSize ? 1 : 0);
        if (given > 1) throw new BadInputException("options '--longest', '--size' and '--own-size' exclude each other: one working size");
        if (ownSize) return new WorkingSize.Own();
        if (size != null) {
            int[] hw = CliChecks.workingSize(size);
            return new WorkingSize.Fixed(hw[0], hw[1]);
        }
        int side = longest == null ? 96 : longest;
        if (side < 2) throw new BadInputException("option '--longest' must be at least 2, got " + side);
        return new WorkingSize.Longest(side);
    }

    /** A folder this command (or horses-data) wrote, or an empty one, may be replaced. */
    static boolean isOurs(Path dir) {
        if (Files.isRegularFile(dir.resolve(Dataset.INFO_FILE)) || Files.isRegularFile(dir.resolve(Dataset.LEGACY_INFO_FILE))) return true;
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        } catch (IOException ex) {
            return false;
        }
    }
}
