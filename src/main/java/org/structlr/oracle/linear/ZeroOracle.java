package org.structlr.oracle.linear;

import org.structlr.oracle.BiasedLogisticProblem;
import org.structlr.oracle.Oracle;
import org.structlr.oracle.ScoreFunction;
import org.structlr.oracle.ScoreFunctions;
import org.structlr.oracle.ZeroScore;

/** The zero function class: every fit returns g = 0 (the paper's "zero" potentials). */
public final class ZeroOracle implements Oracle {

    @Override
    public ScoreFunction fit(BiasedLogisticProblem problem, ScoreFunction previous) {
        ScoreFunctions.checkClasses(previous, problem, "zero oracle");
        return new ZeroScore(problem.numClasses());
    }

    @Override
    public String describe() {
        return "zero";
    }
}
