package org.structlr.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.structlr.data.AtomicFiles;
import org.structlr.data.BadInputException;
import org.structlr.features.HorseLoader;
import org.structlr.features.UnaryFeatures;
import org.structlr.features.WorkingSize;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "horses-data", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prepare the Weizmann horse data set as an .npz data set folder (train/ = odd image numbers, test/ = even).",
                "Images and masks are area-averaged to one working size (--size) or to their own aspect ratio (--longest);",
                "masks thresholded at 128. The special case of images-data for figure/ground masks and this fixed split."})
final class HorsesDataCommand implements Callable<Integer> {
    @Option(names = "--db", required = true, paramLabel = "DIR",
            description = "The Weizmann Horse Database's folder, with rgb/ and figure_ground/.")
    Path db;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Data set folder to write (replaced as a whole if it was written by this command).")
    Path out;

    @Option(names = "--size", defaultValue = HorseLoader.DEFAULT_HEIGHT + "x" + HorseLoader.DEFAULT_WIDTH, paramLabel = "HxW",
            description = "Working size, height x width in pixels (default: ${DEFAULT-VALUE}).")
    String size;

    @Option(names = "--longest", paramLabel = "N",
            description = "Keep each image's aspect ratio with its longest side N pixels, instead of --size: the examples get their "
                    + "own shapes and train as ragged batches.")
    Integer longest;

    @Mixin
    FeatureOptions features;

    @Option(names = "--quiet", description = "Print no progress, only the result and errors.")
    boolean quiet;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        WorkingSize ws = workingSize();
        UnaryFeatures unary = features.unary();
        CliChecks.output("--out", out, true);
        CliChecks.notAnInput("--out", out, "the --db folder", db);
        HorseLoader loader = new HorseLoader(db, ws);
        loader.imageFiles(); // a missing or empty data base fails before anything is written
        int[] counts = new int[2];
        long t0 = System.nanoTime();
        AtomicFiles.replaceFolder(out, dir -> System.arraycopy(loader.writeDataset(dir, unary, quiet ? null : spec.commandLine().getErr()::println), 0, counts, 0, 2),
                ImagesDataCommand::isOurs);
        String sizeText = ws instanceof WorkingSize.Fixed f ? f.height() + "x" + f.width() : "longest side " + ((WorkingSize.Longest) ws).side();
        spec.commandLine().getOut().printf("%d train and %d test images of %s, %s unary features (%d per pixel), 3 edge features: %s (%.1f s)%n",
                counts[0], counts[1], sizeText, unary.name(), unary.dim(), out, (System.nanoTime() - t0) / 1e9);
        return Main.EXIT_OK;
    }

    /** {@code --longest N} (own aspect ratio) or {@code --size HxW}; not both. */
    private WorkingSize workingSize() {
        if (longest == null) {
            int[] hw = CliChecks.workingSize(size);
            return new WorkingSize.Fixed(hw[0], hw[1]);
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--size")) {
            throw new BadInputException("option '--longest' cannot be used with '--size': one working size for all images, or each image's own aspect ratio");
        }
        if (longest < 2) throw new BadInputException("option '--longest' must be at least 2, got " + longest);
        return new WorkingSize.Longest(longest);
    }
}
