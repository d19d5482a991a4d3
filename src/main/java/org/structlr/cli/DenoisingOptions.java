package org.structlr.cli;

import org.structlr.data.BadInputException;
import org.structlr.data.Dataset;
import org.structlr.data.DenoisingGenerator;
import picocli.CommandLine.Option;

/** The generated denoising data of {@code demo} and {@code experiment denoise}: the paper's sizes by default. */
final class DenoisingOptions {
    @Option(names = "--train", defaultValue = "16", description = "Training images (default: ${DEFAULT-VALUE}).")
    int nTrain;

    @Option(names = "--test", defaultValue = "16", description = "Test images (default: ${DEFAULT-VALUE}).")
    int nTest;

    @Option(names = "--size", defaultValue = "100", description = "Image height and width (default: ${DEFAULT-VALUE}).")
    int size;

    /** Checks the options, then generates the images (DenoisingGenerator) from {@code seed}. */
    Dataset generate(long seed) {
        if (nTrain < 1 || nTest < 1 || size < 2) throw new BadInputException("--train and --test must be >= 1 and --size >= 2");
        return new DenoisingGenerator().generate(nTrain, nTest, size, size, seed);
    }

    String describe() {
        return String.format("%d train and %d test images of %dx%d", nTrain, nTest, size, size);
    }
}
