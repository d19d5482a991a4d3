/**
 * The public Java API of structlr, the one package with a compatibility promise: learn a CRF whose
 * factor functions are fitted by logistic regression (Domke 2013), predict with it, save it and
 * export it.
 *
 * <p>Energy of labels y for input x: F(x, y) = sum_i f_unary(phi_i, y_i) + sum_(i,j) f_t(phi_ij, y_i, y_j),
 * one function per factor type, each from a function class ({@code "linear"}, {@code "mlp"},
 * {@code "boost"}, ... or a registered class of one's own, see {@code org.structlr.oracle.FunctionClass}).
 * Prediction maximises the entropy-smoothed LP relaxation of F (smoothing eps) by message passing and
 * takes y_i = argmax_y b_i(y) of the beliefs b_i, which are also the marginals returned.
 *
 * <p>Entry points:
 * <ul>
 *   <li>{@link org.structlr.api.CrfData}: a data set folder of {@code .npz} examples, examples in memory,
 *       or the paper's denoising images; {@link org.structlr.api.CrfExample}: one example from arrays or an
 *       {@code .npz} file; {@link org.structlr.api.CrfImages}: photos and their masks as examples;</li>
 *   <li>{@link org.structlr.api.CrfTrainer}: {@code CrfTrainer.builder().unary("linear").pairwise("linear")
 *       .iterations(50).build().train(data)}, with schedule, engine, class options, validation,
 *       checkpoints and resuming; {@link org.structlr.api.TrainingListener}: progress;
 *       {@link org.structlr.api.TrainingReport}: the learning curve and timings, {@code crf.report()};</li>
 *   <li>{@link org.structlr.api.Crf}: {@code predict(example)}, {@code predict(examples)} (one batch),
 *       {@code save}, {@code load}, {@code export}, {@code figure}; {@link org.structlr.api.Prediction}: labels,
 *       marginals [V][L], error; {@link org.structlr.api.CrfServer}: the model behind HTTP.</li>
 * </ul>
 * Every public type's javadoc has an example that the tests run ({@code ApiExamplesTest}). A function
 * class of one's own implements the plug-in interfaces of {@code org.structlr.oracle}
 * ({@code FunctionClass}, {@code Oracle}, {@code ScoreFunction}; docs/guide/function-class.md).
 * Every other {@code org.structlr} package is internal: public where another package needs it, with
 * no compatibility promise.
 */
package org.structlr.api;
