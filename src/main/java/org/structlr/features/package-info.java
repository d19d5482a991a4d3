/**
 * Internal (no compatibility promise): features of images for the horse experiment (docs/design.md §1).
 *
 * <p>{@link org.structlr.features.HorseLoader} reads the Weizmann horse images and masks, resized to the
 * working size; {@link org.structlr.features.ImageReader} decodes images for prediction;
 * {@link org.structlr.features.ImageFeatures} computes the paper's 42 unary features per pixel
 * (colour, position, texture histograms) and 3 per grid edge (|colour difference| and its
 * exponentials); {@link org.structlr.features.PatchFeatures} gives raw k x k RGB patches (for the cnn
 * class); {@link org.structlr.features.UnaryFeatures} is the small interface of a unary featurizer;
 * {@link org.structlr.features.LabelImages} turns labels into mask images and back.
 */
package org.structlr.features;
