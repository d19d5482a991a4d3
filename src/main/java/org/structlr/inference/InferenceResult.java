package org.structlr.inference;

/** What a run of message passing reached. */
public record InferenceResult(int iterations, double dual, double primal, double gap, boolean converged) {}
