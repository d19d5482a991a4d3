/**
 * Internal (no compatibility promise): the {@code structlr} command line (picocli), one class per
 * subcommand: {@code demo}, {@code horses-data}, {@code train}, {@code experiment}, {@code evaluate},
 * {@code predict}, {@code infer}, {@code export}, {@code bench}.
 *
 * <p>Entry point: {@link org.structlr.cli.Main} ({@code Main.execute(args)} returns the exit code:
 * 0 success, 1 failure, 2 bad input with one line {@code error: <file or option>: <problem>}).
 * Commands hold no maths: they parse options, check them before any work ({@link
 * org.structlr.cli.CliChecks}), call {@code learn.Training}, {@code model.Predictor},
 * {@code model.ModelExport} or the engines, and show progress ({@link org.structlr.cli.TrainingProgress}).
 * {@code --unary NAME} / {@code --pairwise NAME} accept any registered function class
 * ({@code org.structlr.oracle.FunctionClasses}).
 */
package org.structlr.cli;
