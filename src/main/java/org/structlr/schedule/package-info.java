/**
 * Learning schedules: how the alternating learner (the paper's Alg. 1, {@code learn.AlternatingLearner})
 * spends its time between oracle fits and message passing. Internal: no compatibility promise; the
 * CLI names them ({@code --schedule}, {@code experiment --schedules a,b}).
 *
 * <p>Every schedule minimises the same objective (docs/design.md §1)
 * <pre>
 *   R(F, lambda) = sum_k [ -F(x^k, y^k) + A(lambda^k, theta^k_F) ]
 * </pre>
 * by block-coordinate steps: an exact oracle fit minimises R over one factor type's function at
 * fixed messages (the paper's reduction to a biased logistic regression), a star update minimises
 * A over the messages into one variable at fixed functions. Neither step can raise R, so with exact
 * oracles (zero, constant, linear) R never rises under any schedule (ScheduleLearnerTest), and the
 * final eps is always the one asked for.
 * <ul>
 *   <li>{@code paper} ({@link org.structlr.schedule.PaperSchedule}): {@code --sweeps} (25) sweeps after
 *       every fit, fits to convergence: Alg. 1 exactly (tested bit for bit against Alg. 1 written out).</li>
 *   <li>{@code adaptive} ({@link org.structlr.schedule.AdaptiveSchedule}): after each fit, sweeps in
 *       chunks of 5 while the dual still falls by at least 1% of the fit's own gain per sweep
 *       (at least min(--sweeps, 10), at most 20 x --sweeps). Measured: on the denoising set R per
 *       iteration barely depends on the sweeps (5 or 25 or adaptive), so this alone does not pay there.</li>
 *   <li>{@code extrapolate} ({@link org.structlr.schedule.ExtrapolatingSchedule} over {@code paper}):
 *       each iteration ends with a step along the iteration's own displacement of the parameters
 *       of parametric functions ({@code oracle.ParametricScore}: linear, constant) and of the
 *       messages, x1 + beta (x1 - x0), with beta minimising R on that line by damped Newton
 *       ({@code learn.Extrapolation}, {@code learn.SubspaceObjective}: R and its first two
 *       derivatives in beta from one pass over the regions, without the engine). Alternating exact
 *       minimisation over strongly coupled blocks zig-zags along a nearly constant direction; the
 *       step covers several iterations' worth for a few passes. R still never rises (the point is
 *       rebuilt from its functions and kept only if the engine's R there is below R(x1)), and
 *       every point is a valid (functions, messages) pair of the same R. For other classes (boost,
 *       mlp) only the messages move.</li>
 *   <li>{@code adaptive-extrapolate}: both.</li>
 * </ul>
 * {@link org.structlr.schedule.Schedule#fitIterations} lets a schedule bound the optimiser
 * iterations of iterative oracles ({@code oracle.IterativeOracle}: linear); no shipped schedule
 * uses it yet (the linear oracle's warm-started Newton fits already stop after a few steps).
 */
package org.structlr.schedule;
