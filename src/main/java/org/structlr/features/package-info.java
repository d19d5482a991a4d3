/**
 * Internal (no compatibility promise): labelled images into examples, and images into features
 * (docs/design.md §1).
 *
 * <p>Image data sets ({@code images-data}): {@link org.structlr.features.ImageSplits} pairs images
 * with masks by name and splits them (lists, folders or a seeded shuffle);
 * {@link org.structlr.features.MaskReader} reads masks into labels (class-index, palette, colour or
 * thresholded figure/ground masks, through the class table);
 * {@link org.structlr.features.LabelledImageReader} brings an image and its mask to the working
 * size ({@link org.structlr.features.WorkingSize}; masks by {@link org.structlr.features.LabelResize}'s
 * majority vote, never interpolated), optionally augmented; {@link org.structlr.features.ImageDataWriter}
 * writes the examples and the data set's description. {@link org.structlr.features.HorseLoader} is
 * the Weizmann horses as a special case of it.
 *
 * <p>Features: {@link org.structlr.features.ImageFeatures} computes the paper's 42 unary features
 * per pixel (colour, position, texture histograms) and 3 per grid edge;
 * {@link org.structlr.features.PatchFeatures} raw k x k RGB patches (for the cnn class);
 * {@link org.structlr.features.RgbFeatures} the raw pixels (for fcn);
 * {@link org.structlr.features.UnaryFeatures} is the small interface of a unary featurizer.
 * {@link org.structlr.features.ImageDecoder} is the one decoding path of training and prediction;
 * {@link org.structlr.features.ImageReader} reads images for prediction;
 * {@link org.structlr.features.LabelImages} turns predicted labels into mask, index, colour and
 * probability images at an image's own size.
 */
package org.structlr.features;
