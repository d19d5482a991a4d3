/**
 * Internal (no compatibility promise): figures as PNG files (XChart): learning curves
 * ({@link org.structlr.viz.LearningCurveFigure}: objective and train/test error per iteration, one panel
 * per pair of a table), predictions ({@link org.structlr.viz.PredictionFigure}: image, truth, labels,
 * marginals), learned functions ({@link org.structlr.viz.FunctionFigure}: g along one feature), and
 * the small helpers of {@link org.structlr.viz.Plots}.
 */
package org.structlr.viz;
