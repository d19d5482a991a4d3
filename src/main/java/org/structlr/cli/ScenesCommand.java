package org.structlr.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.structlr.data.BadInputException;
import org.structlr.data.SceneGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "scenes", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Generate the multi-class example: textured shapes of 4 classes on a textured background (colour alone cannot tell",
                "the classes apart), void boundaries, images of varying sizes; in Pascal VOC's layout: images/, masks/ (palette PNGs,",
                "255 = void), classes.json, lists/{train,val,test}.txt. Then: images-data --images OUT/images --masks OUT/masks",
                "--classes OUT/classes.json --lists OUT/lists --out DATA."})
final class ScenesCommand implements Callable<Integer> {
    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder to write (created; files of the same names replaced).")
    Path out;

    @Option(names = "--count", defaultValue = "60", paramLabel = "N", description = "Images (default: ${DEFAULT-VALUE}: 36 train, 12 val, 12 test).")
    int count;

    @Option(names = "--min-side", defaultValue = "48", paramLabel = "PX", description = "Smallest image side (default: ${DEFAULT-VALUE}).")
    int minSide;

    @Option(names = "--max-side", defaultValue = "72", paramLabel = "PX", description = "Largest image side (default: ${DEFAULT-VALUE}).")
    int maxSide;

    @Option(names = "--seed", defaultValue = "1", description = "Seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--train-void", defaultValue = "0", paramLabel = "F",
            description = "Partial labels: make random labelled pixels of the training masks void until a fraction F of each is void"
                    + " (val and test keep every label; the images are those of F = 0) (default: ${DEFAULT-VALUE}: the masks as drawn).")
    double trainVoid;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (count < 3 || count > 100_000) throw new BadInputException("option '--count' must be 3..100000, got " + count);
        if (minSide < 8 || maxSide < minSide || maxSide > 4096) {
            throw new BadInputException("options '--min-side' and '--max-side' must satisfy 8 <= min <= max <= 4096, got " + minSide + " and " + maxSide);
        }
        CliChecks.output("--out", out, true);
        if (Files.exists(out) && !Files.isDirectory(out)) throw new BadInputException(out, "cannot write --out: exists and is a file");
        long t0 = System.nanoTime();
        if (!(trainVoid >= 0 && trainVoid < 1)) throw new BadInputException("option '--train-void' must be in [0, 1), got " + trainVoid);
        double v = new SceneGenerator(minSide, maxSide).write(out, count, seed, trainVoid);
        spec.commandLine().getOut().printf(java.util.Locale.ROOT, "%d scenes of %d to %d pixels a side, %d classes, %.1f%% of the training pixels void: %s (%.1f s)%n",
                count, minSide, maxSide, SceneGenerator.CLASS_NAMES.size(), 100 * v, out, (System.nanoTime() - t0) / 1e9);
        return Main.EXIT_OK;
    }
}
