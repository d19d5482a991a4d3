/**
 * Internal (no compatibility promise): how good a segmentation is, the numbers the field reports.
 *
 * <p>{@link org.structlr.metrics.ConfusionMatrix} counts, over the labelled variables (void ones,
 * {@link org.structlr.data.Example#VOID}, are skipped), how often true class t was predicted as p:
 * C[t][p]. From it: pixel accuracy = sum_c C[c][c] / sum C; per-class IoU_c = C[c][c] /
 * (sum_p C[c][p] + sum_t C[t][c] - C[c][c]) (true positives over the union of truth and
 * prediction); mean IoU = the mean of IoU_c over the classes present in the truth or the prediction
 * (Pascal VOC's and Cityscapes' convention: a class absent from both has no IoU, not 0 or 1).
 * evaluate, train --report, experiment and validation (--val-every) all use this one class.
 */
package org.structlr.metrics;
