package org.structlr.cli;

import org.structlr.features.ImageFeatures;
import org.structlr.features.PatchFeatures;
import org.structlr.features.UnaryFeatures;
import picocli.CommandLine.Option;

/** The unary features of images-data and horses-data: --features with its --cell or --patch. */
final class FeatureOptions {
    @Option(names = "--features", defaultValue = "handmade", paramLabel = "KIND",
            description = "Unary features: handmade (42: 1, RGB, position, HOG), patch (RGB k x k patch, channel-major) or rgb"
                    + " (the raw pixels, for fcn and your own networks) (default: ${DEFAULT-VALUE}).")
    String features;

    @Option(names = "--cell", defaultValue = "" + ImageFeatures.DEFAULT_CELL, paramLabel = "PX",
            description = "HOG cell side for handmade features (default: ${DEFAULT-VALUE}).")
    int cell;

    @Option(names = "--patch", defaultValue = "" + PatchFeatures.DEFAULT_K, paramLabel = "K",
            description = "Patch side (odd) for patch features (default: ${DEFAULT-VALUE}).")
    int patch;

    /** The features asked for; bad values are usage errors. */
    UnaryFeatures unary() {
        return CliChecks.unaryFeatures(features, cell, patch);
    }
}
