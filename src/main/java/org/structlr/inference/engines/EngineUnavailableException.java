package org.structlr.inference.engines;

/** A named engine ({@code --engine}) cannot run the graph it was asked for; the message says why and what to use. */
public final class EngineUnavailableException extends IllegalArgumentException {
    public EngineUnavailableException(String message) {
        super(message);
    }
}
