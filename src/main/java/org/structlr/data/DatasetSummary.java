package org.structlr.data;

/**
 * What training needs to know of a checked data set besides its examples: the sizes and widths
 * {@link Dataset} derives, without the arrays. A {@link Dataset} has one; a data set that only
 * cluster machines read (train --spark) has only this on the driver.
 *
 * @param root          the folder or URI it was read from, or null (made in memory)
 * @param trainImages   whether every training example has a {@code shape}
 * @param allImages     whether every example of every split has one
 */
public record DatasetSummary(String root, int trainExamples, int testExamples, int valExamples, int numLabels, int unaryDim,
                             int pairDim, int numPairTypes, boolean trainImages, boolean allImages) {}
