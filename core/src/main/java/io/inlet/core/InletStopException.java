package io.inlet.core;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A failure that would happen again on every restart, so the job stops instead of restarting: a
 * record that cannot be converted, a schema change the pipeline cannot follow. Flink classifies it
 * as non-recoverable wherever it sits in a chain of causes, so the restart strategy is not consulted
 * and the job fails once, with this message, instead of restarting in a loop that commits nothing.
 * The message names what happened, where, and what to do.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class InletStopException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InletStopException(String message) {
        super(message);
    }

    public InletStopException(String message, Throwable cause) {
        super(message, cause);
    }
}
