package org.structlr.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.data.ExampleIO;
import org.structlr.features.HorseLoader;
import org.structlr.features.ImageRecipe;
import org.structlr.features.WorkingSize;
import org.structlr.features.ImageFeatures;
import org.structlr.features.ImageReader;
import org.structlr.features.LabelImages;
import org.structlr.features.PatchFeatures;
import org.structlr.features.UnaryFeatures;
import org.structlr.model.ClusterPrediction;
import org.structlr.model.CrfModel;
import org.structlr.model.Predictor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code predict}: .npz examples in, .npz predictions out; or images (.png, .jpg, .jpeg) in, mask
 * PNGs out.
 *
 * <p>Images: each one is decoded and area-averaged to the working size ({@link ImageReader}, as
 * {@code horses-data} prepares training images), its unary features ({@code --features}) and the 3
 * hand-made edge features are computed there, the model predicts the beliefs of every working
 * pixel, and these are resized bilinearly to the image's own size, where each pixel takes its most
 * probable label ({@link LabelImages}): the mask is white (255) for label 1, black for label 0. The
 * model's feature widths must match the chosen features (42 unary and 3 pairwise for handmade).
 * Every input is read and checked before anything is written; each output file appears atomically.
 */
@Command(name = "predict", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Label new examples with a trained model: .npz in, .npz out with 'labels' [V] and 'marginals' [V, L];"
                + " or images (.png, .jpg, .jpeg; any size, colour or grey) in, a PNG of the image's own size out (--format).",
                "Images are area-averaged to the model's working size (--size, --longest or --own-size), featurised there (--features),"
                + " and the predicted probabilities resized back bilinearly; each pixel takes its most probable label."})
final class PredictCommand implements Callable<Integer> {
    @Option(names = "--model", converter = PathConverter.class, required = true, paramLabel = "MODEL", description = "A model folder written by train.")
    Path model;

    @Option(names = "--input", converter = PathConverter.class, required = true, paramLabel = "FILE.npz|IMAGE|DIR",
            description = "One example (.npz), one image (.png, .jpg, .jpeg), or a folder of either kind.")
    Path input;

    @Option(names = "--output", converter = PathConverter.class, required = true, paramLabel = "FILE.npz|MASK.png|DIR",
            description = "Output file: .npz for an example, .png mask for an image; a folder when --input is a folder "
                    + "(one <name>.npz per example, one <name>.png mask per image).")
    Path output;

    @Option(names = "--probabilities", converter = PathConverter.class, paramLabel = "FILE.npz|DIR",
            description = "Images only: also write 'probabilities' [H, W, L] (float32, the image's own size), 'labels' [H, W] "
                    + "and 'shape' per image to this .npz file (a folder of <name>.npz when --input is a folder).")
    Path probabilities;

    @Option(names = "--format", defaultValue = "mask", paramLabel = "KIND",
            description = "Images only: what --output holds: mask (grey: label k at 255 k / (L - 1), so with two labels 0 black and 1 white),"
                    + " index (the class indices as a palette PNG with the"
                    + " class colours: Pascal VOC's convention) or color (each pixel its class's colour) (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--marginals", converter = PathConverter.class, paramLabel = "DIR",
            description = "Images only: also write one probability map per class, STEM-K-NAME.png (grey: 255 p), at the image's own size, into this folder.")
    Path marginals;

    // The image options default to the model's image recipe (recorded at training from the data
    // set's horses-data.json), else to horses-data's defaults: see resolveRecipe.
    @Option(names = "--features", paramLabel = "KIND",
            description = "Images only: the unary features the model was trained on, handmade (42) or patch (3 k^2), "
                    + "as in horses-data and images-data (default: the model's image recipe, else handmade).")
    String features;

    @Option(names = "--size", paramLabel = "HxW",
            description = "Images only: the working size the model was trained at, height x width (default: the model's, else "
                    + HorseLoader.DEFAULT_HEIGHT + "x" + HorseLoader.DEFAULT_WIDTH + ").")
    String size;

    @Option(names = "--longest", paramLabel = "N",
            description = "Images only: the model was trained on images at their own aspect ratio with longest side N "
                    + "(horses-data --longest; default: the model's image recipe; for a fully convolutional unary (fcn) "
                    + "trained at a fixed size, that size's longer side, so the photo keeps its aspect ratio). Not with --size.")
    Integer longest;

    @Option(names = "--own-size",
            description = "Images only: the model was trained on images at their own size (images-data --own-size; default: the model's image recipe).")
    boolean ownSize;

    @Option(names = "--cell", paramLabel = "PX",
            description = "Images only: HOG cell side of handmade features (default: the model's, else " + ImageFeatures.DEFAULT_CELL + ").")
    Integer cell;

    @Option(names = "--patch", paramLabel = "K",
            description = "Images only: patch side (odd) of patch features (default: the model's, else " + PatchFeatures.DEFAULT_K + ").")
    Integer patch;

    // hook for the -Pspark build (ClusterPrediction): the same outputs, inputs labelled in parallel
    @Option(names = "--spark", paramLabel = "MASTER",
            description = "Label the inputs in parallel on Apache Spark: local[N] (embedded, N threads) or spark://HOST:PORT."
                    + " Only in the -Pspark build; the model, inputs and outputs must be on a file system every executor sees.")
    String spark;

    @Mixin
    PredictionOptions prediction;

    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        prediction.check();
        common.apply();
        ClusterPrediction cluster = spark == null ? null : ClusterPrediction.find("--spark");
        CrfModel m = CrfModel.load(model);
        if (!Files.exists(input)) throw new BadInputException(input, "no such file or folder");
        boolean folder = Files.isDirectory(input);
        List<Path> npz = new ArrayList<>(), images = new ArrayList<>();
        if (folder) {
            try (Stream<Path> s = Files.list(input)) {
                for (Path p : s.sorted().toList()) {
                    if (p.toString().endsWith(".npz")) npz.add(p);
                    else if (ImageReader.isImageFile(p) && !Files.isDirectory(p)) images.add(p);
                }
            }
            if (!npz.isEmpty() && !images.isEmpty()) {
                throw new BadInputException(input, "folder holds both .npz examples and images (" + npz.get(0).getFileName() + ", "
                        + images.get(0).getFileName() + "); put them in separate folders");
            }
            if (npz.isEmpty() && images.isEmpty()) throw new BadInputException(input, "folder holds no .npz files and no images (.png, .jpg, .jpeg)");
        } else if (ImageReader.isImageFile(input)) {
            images.add(input);
        } else if (input.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".npz")) {
            npz.add(input);
        } else {
            throw new BadInputException(input, "unknown extension: predict reads .npz examples or .png, .jpg, .jpeg images");
        }
        if (!images.isEmpty()) return predictImages(m, images, folder, cluster);
        if (probabilities != null) {
            throw new BadInputException("option '--probabilities' is for image input; the .npz predictions hold 'marginals' already");
        }
        if (marginals != null) throw new BadInputException("option '--marginals' is for image input; the .npz predictions hold 'marginals' already");
        if (!format.equals("mask")) throw new BadInputException("option '--format' is for image input; .npz predictions are .npz files");
        return predictExamples(m, npz, folder, cluster);
    }

    private Integer predictExamples(CrfModel m, List<Path> inputs, boolean folder, ClusterPrediction cluster) throws IOException {
        CliChecks.output("--output", output, folder);
        CliChecks.notAnInput("--output", output, folder ? "the input folder" : "the input file", input);
        CliChecks.notAnInput("--output", output, "the model", model);
        for (Path in : inputs) {
            CliChecks.notAnInput("--output", folder ? output.resolve(in.getFileName()) : output, "the input " + in, in);
        }
        // Read and check everything before writing anything.
        List<Example> examples = inputs.stream().map(ExampleIO::read).toList();
        for (Example e : examples) Predictor.checkCompatible(m, e);
        if (cluster != null) {
            List<PredictTasks.ExampleTask> tasks = new ArrayList<>();
            for (Path in : inputs) {
                Path out = folder ? output.resolve(in.getFileName()) : output;
                tasks.add(new PredictTasks.ExampleTask(absolute(model), absolute(in), absolute(out), prediction.iterations, prediction.tolerance, prediction.engine.engine));
            }
            report(cluster.run(spark, tasks));
            Staging.written(output);              // the executors wrote it (remote outputs: through Hadoop themselves)
            return Main.EXIT_OK;
        }
        for (int k = 0; k < examples.size(); k++) {
            Example ex = examples.get(k);
            Path out = folder ? output.resolve(inputs.get(k).getFileName()) : output;
            Predictor.Prediction p = PredictTasks.predictExample(m, ex, out, prediction.iterations, prediction.tolerance, prediction.engine.engine);
            if (!common.quiet) {
                spec.commandLine().getErr().printf("%s -> %s (%d sweeps, gap %.2e)%n", inputs.get(k), out, p.inference().iterations(), p.inference().gap());
            }
        }
        return Main.EXIT_OK;
    }

    // ------------------------------------------------------------------------------------------
    // images

    /** Where executors find a path: the URI it was staged from (hdfs://...), else the absolute local path (a shared file system). */
    private static String absolute(Path p) {
        String uri = Staging.uriOf(p);
        return uri != null ? uri : p.toAbsolutePath().normalize().toString();
    }

    /** The tasks' log lines, in input order (unless --quiet). */
    private void report(List<String> lines) {
        if (!common.quiet) for (String line : lines) spec.commandLine().getErr().println(line);
    }

    private Integer predictImages(CrfModel m, List<Path> inputs, boolean folder, ClusterPrediction cluster) throws IOException {
        if (!PredictTasks.ImageOutputs.FORMATS.contains(format)) {
            throw new BadInputException("option '--format' must be one of " + String.join(", ", PredictTasks.ImageOutputs.FORMATS) + ", got '" + format + "'");
        }
        ImageRecipe recipe = ImageRecipe.resolve(m.provenance(), m.unary() instanceof org.structlr.oracle.ImageScoreFunction,
                new ImageRecipe.Options(features, size == null ? null : CliChecks.workingSize(size), longest, ownSize, cell, patch));
        features = recipe.features();
        cell = recipe.cell();
        patch = recipe.patch();
        boolean fromModel = recipe.fromModel();
        WorkingSize ws = recipe.size();
        if (ws instanceof WorkingSize.Longest l) longest = l.side();
        UnaryFeatures unary = recipe.unary();
        try {
            recipe.check(m.unaryFeatures(), m.pairFeatures(), m.pairTypes().size(), "--features " + features);
        } catch (BadInputException e) {
            throw new BadInputException(model, e.getMessage());
        }
        boolean typedEdges = m.pairTypes().size() == 2;
        checkImageOutputs(inputs, folder);
        if (!common.quiet) {
            spec.commandLine().getErr().printf("images: %s at %s%s%n", unary,
                    ws instanceof WorkingSize.Fixed f ? f.height() + "x" + f.width() : ws instanceof WorkingSize.Own ? "their own size"
                            : "their own aspect ratio, longest side " + longest,
                    fromModel ? " (the model's image recipe)" : "");
        }

        // Read and check every image before writing anything (only the small working-size copies are kept).
        List<ImageReader.WorkingImage> read = new ArrayList<>();
        ImageReader reader = new ImageReader();
        try (ProgressBar bar = bar("read", inputs.size(), folder)) {
            for (Path p : inputs) {
                read.add(reader.read(p, ws));
                if (bar != null) bar.step();
            }
        }
        long t0 = System.nanoTime();
        if (cluster != null) {
            int h = ws instanceof WorkingSize.Fixed f ? f.height() : 0, w = ws instanceof WorkingSize.Fixed f ? f.width() : 0;
            int side = ws instanceof WorkingSize.Longest l ? l.side() : ws instanceof WorkingSize.Own ? -1 : 0;
            List<PredictTasks.ImageTask> tasks = new ArrayList<>();
            for (ImageReader.WorkingImage img : read) {
                Path mask = folder ? output.resolve(ImageReader.stem(img.file()) + ".png") : output;
                Path probs = probabilities == null ? null : folder ? probabilities.resolve(ImageReader.stem(img.file()) + ".npz") : probabilities;
                tasks.add(new PredictTasks.ImageTask(absolute(model), absolute(img.file()), absolute(mask), format, probs == null ? null : absolute(probs),
                        marginals == null ? null : absolute(marginals), features, cell, patch, h, w, side, typedEdges, prediction.iterations, prediction.tolerance, prediction.engine.engine));
            }
            report(cluster.run(spark, tasks));
            Staging.written(output);
            if (probabilities != null) Staging.written(probabilities);
            if (marginals != null) Staging.written(marginals);
            if (folder && !common.quiet) {
                spec.commandLine().getErr().printf(Locale.ROOT, "%d masks -> %s (%.1f s)%n", read.size(), output, (System.nanoTime() - t0) / 1e9);
            }
            return Main.EXIT_OK;
        }
        try (ProgressBar bar = bar("predict", inputs.size(), folder)) {
            for (ImageReader.WorkingImage img : read) {
                Path mask = folder ? output.resolve(ImageReader.stem(img.file()) + ".png") : output;
                Path probs = probabilities == null ? null : folder ? probabilities.resolve(ImageReader.stem(img.file()) + ".npz") : probabilities;
                Predictor.Prediction p = PredictTasks.predictImage(m, img, unary, typedEdges, new PredictTasks.ImageOutputs(mask, format, probs, marginals),
                        prediction.iterations, prediction.tolerance, prediction.engine.engine);
                if (bar != null) {
                    bar.step();
                } else if (!common.quiet) {
                    spec.commandLine().getErr().printf("%s -> %s (%dx%d, %d sweeps, gap %.2e)%n", img.file(), mask, img.originalHeight(),
                            img.originalWidth(), p.inference().iterations(), p.inference().gap());
                }
            }
        }
        if (folder && !common.quiet) {
            spec.commandLine().getErr().printf(Locale.ROOT, "%d masks -> %s (%.1f s)%n", read.size(), output, (System.nanoTime() - t0) / 1e9);
        }
        return Main.EXIT_OK;
    }





    /** Refuses, before any work, outputs that cannot be written or would replace an input or each other. */
    private void checkImageOutputs(List<Path> inputs, boolean folder) {
        if (marginals != null) {
            CliChecks.output("--marginals", marginals, true);
            if (folder) CliChecks.notAnInput("--marginals", marginals, "the input folder (the maps would join the images)", input);
        }
        if (folder) {
            CliChecks.output("--output", output, true);
            CliChecks.notAnInput("--output", output, "the input folder (masks would replace the images)", input);
            if (probabilities != null) {
                CliChecks.output("--probabilities", probabilities, true);
                CliChecks.notAnInput("--probabilities", probabilities, "the input folder", input);
                CliChecks.notAnInput("--probabilities", probabilities, "the --output folder", output);
            }
            Map<String, Path> byStem = new HashMap<>();
            for (Path p : inputs) {
                Path other = byStem.putIfAbsent(ImageReader.stem(p), p);
                if (other != null) {
                    throw new BadInputException(p, "has the same name as " + other.getFileName() + ": both would write " + ImageReader.stem(p) + ".png");
                }
            }
        } else {
            if (!output.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
                throw new BadInputException(output, "cannot write --output: the mask of an image is a .png file");
            }
            CliChecks.output("--output", output, false);
            CliChecks.notAnInput("--output", output, "the input image", input);
            if (probabilities != null) {
                if (!probabilities.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".npz")) {
                    throw new BadInputException(probabilities, "cannot write --probabilities: it must be an .npz file");
                }
                CliChecks.output("--probabilities", probabilities, false);
                CliChecks.notAnInput("--probabilities", probabilities, "the input or the --output file", input, output);
            }
        }
    }

    /** A progress bar with time left on stderr, for folders unless --quiet; null otherwise. */
    private ProgressBar bar(String task, int total, boolean folder) {
        if (!folder || common.quiet) return null;
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(total)
                .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).setMaxRenderedLength(120)
                .setConsumer(new ConsoleProgressBarConsumer(System.err)).showSpeed().build();
    }
}
