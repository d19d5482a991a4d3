package org.structlr.learn;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.structlr.inference.MessagePassing;

/**
 * One message-passing engine's state between iterations, in two forms: the engine's exact state
 * ({@link MessagePassing#state()}, meaningful only to an engine of the class named {@code engine}) and
 * its messages in the units of the potentials ({@link MessagePassing#messages()}, flat {@code [E, 2, L]}),
 * which any engine over the same graph can start from. Restoring prefers the exact state, so that a
 * resumed run repeats the uninterrupted one bit for bit; the messages are the fallback for a
 * checkpoint written by another engine or by format version 1 (which saved only messages).
 *
 * @param engine   the class name of the engine that produced {@code state}; null with no state
 * @param state    the exact state, or null
 * @param messages the messages, flat {@code [E, 2, L]}; never null
 */
public record EngineState(String engine, float[] state, float[] messages) implements java.io.Serializable {
    public EngineState {
        if (messages == null) throw new IllegalArgumentException("an engine state needs its messages");
        if ((engine == null) != (state == null)) throw new IllegalArgumentException("an exact state needs the engine that made it");
    }

    /** Both forms of {@code e}'s current state. */
    public static EngineState of(MessagePassing e) {
        return new EngineState(e.getClass().getName(), e.state(), flat(e.messages()));
    }

    /** A row-major float copy of any array (on the host). */
    public static float[] flat(INDArray a) {
        INDArray f = a.dataType() == DataType.FLOAT ? a : a.castTo(DataType.FLOAT);
        if (f.ordering() != 'c' || f.isView() || f.data().length() != f.length()) f = f.dup('c');
        return f.data().asFloat();
    }

    /** Whether {@link #restoreInto} restores {@code e} exactly (same engine class). */
    public boolean exactFor(MessagePassing e) {
        return state != null && engine.equals(e.getClass().getName());
    }

    /** Puts this state into {@code e}: exactly for the same engine class, else through the messages. */
    public void restoreInto(MessagePassing e) {
        if (exactFor(e)) {
            e.setState(state);
            return;
        }
        int E = e.graph().numEdges(), L = e.graph().maxLabels();
        if (messages.length != (long) E * 2 * L) {
            throw new IllegalArgumentException("the saved messages hold " + messages.length + " numbers; this graph needs [" + E + ", 2, " + L + "]");
        }
        e.setMessages(Nd4j.create(messages, new long[] {E, 2, L}, 'c'));
    }
}
