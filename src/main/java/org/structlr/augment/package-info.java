/**
 * Internal (no compatibility promise): augmentation of labelled images (flips, crops, scale, colour
 * jitter), seeded, with the same geometric transform on an image and its mask and masks never
 * interpolated.
 *
 * <p>{@link org.structlr.augment.Augmentation} holds the settings and draws one
 * {@link org.structlr.augment.Augmentation.Transform} per copy from a seeded random source;
 * {@link org.structlr.augment.Planes} does the geometry on row-major planes (float planes for
 * colours and grey masks, int planes for label masks).
 *
 * <p>Why not DataVec's image transforms: they act on OpenCV images one at a time, so a mask would
 * need a second, identically seeded transform; their scaling interpolates (a mask would get labels
 * that are blends of class indices); and they have no brightness/contrast jitter. Flips and crops
 * are index arithmetic, jitter a few lines: written here on plain planes, tested (a flip twice is
 * the identity, a crop's pixels are the source's, a mask only ever holds labels of its source).
 * This also keeps augmentation independent of the image decoder (OpenCV today).
 */
package org.structlr.augment;
