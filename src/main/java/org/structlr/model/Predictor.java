package org.structlr.model;

import org.nd4j.linalg.api.ndarray.INDArray;
import org.structlr.data.BadInputException;
import org.structlr.data.Example;
import org.structlr.inference.InferenceResult;
import org.structlr.inference.MessagePassing;
import org.structlr.inference.StopRule;
import org.structlr.inference.engines.EngineChoice;
import org.structlr.inference.engines.EngineUnavailableException;

/** Prediction with a trained model: potentials without loss augmentation, message passing, argmax. */
public final class Predictor {
    private Predictor() {}

    /** Labels {@code [V]}, marginals {@code [V, L]} of the whole batch, and how inference ended. */
    public record Prediction(int[] labels, INDArray marginals, InferenceResult inference) {}

    /** Refuses examples whose feature widths do not match the model, naming the file. */
    public static void checkCompatible(CrfModel model, Example ex) {
        if (ex.unaryDim() != model.unaryFeatures()) {
            throw new BadInputException("" + ex.name() + ": " + ex.unaryDim() + " unary features but the model expects " + model.unaryFeatures());
        }
        if (ex.numEdges() > 0 && ex.pairDim() != model.pairFeatures()) {
            throw new BadInputException("" + ex.name() + ": " + ex.pairDim() + " pairwise features but the model expects " + model.pairFeatures());
        }
    }

    public static Prediction predict(CrfModel model, ExampleBatch batch, StopRule stop) {
        return predict(model, batch, stop, EngineChoice.AUTO);
    }

    /** As {@link #predict(CrfModel, ExampleBatch, StopRule)} on the engine {@code engine} names (a named one that cannot run the batch: bad input). */
    public static Prediction predict(CrfModel model, ExampleBatch batch, StopRule stop, EngineChoice engine) {
        for (Example ex : batch.examples()) checkCompatible(model, ex);
        MessagePassing engineForBatch;
        try {
            engineForBatch = batch.newEngine(model.eps(), engine);
        } catch (EngineUnavailableException e) {
            throw new BadInputException(e.getMessage());
        }
        try (MessagePassing mp = engineForBatch) {
            mp.setPotentials(Potentials.unary(batch, model.unary(), model.eps()), Potentials.pairwise(batch, model.pair(), model.eps()));
            InferenceResult r = mp.run(stop);
            return new Prediction(mp.decode(), mp.unaryBeliefs(), r);
        }
    }

    /** Stop when the duality gap per variable is below {@code tolPerVariable}, or after {@code max} sweeps. */
    public static StopRule defaultStop(ExampleBatch batch, int max, double tolPerVariable) {
        return new StopRule(max, tolPerVariable * batch.graph().numVariables(), 10);
    }
}
