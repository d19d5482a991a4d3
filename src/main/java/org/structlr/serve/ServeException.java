package org.structlr.serve;

/** A request the server answers with an error status and one JSON message (never a stack trace). */
final class ServeException extends RuntimeException {
    final int status;
    final String retryAfter;

    ServeException(int status, String message) {
        this(status, message, null);
    }

    ServeException(int status, String message, String retryAfter) {
        super(message);
        this.status = status;
        this.retryAfter = retryAfter;
    }
}
