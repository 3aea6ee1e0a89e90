package io.inlet.core;

import io.inlet.annotation.PublicEvolving;

import java.util.Collections;
import java.util.List;

/**
 * A pipeline, source, transform or sink is configured in a way that cannot work. The message names
 * each problem and its fix; {@link #problems()} lists them one by one. Thrown before anything runs.
 */
@PublicEvolving
public class InletValidationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /** One problem. */
    public InletValidationException(String problem) {
        this(Collections.singletonList(problem), (Throwable) null);
    }

    /** One problem, caused by an exception (for example a refused connection). */
    public InletValidationException(String problem, Throwable cause) {
        this(Collections.singletonList(problem), cause);
    }

    /** Several problems, reported together so that one run shows everything to fix. */
    public InletValidationException(List<String> problems) {
        this(problems, (Throwable) null);
    }

    /**
     * Several problems, some caused by exceptions (a catalog that could not be reached): the first is the
     * cause, the others are suppressed, so that the stack trace shows what went wrong under each.
     */
    public InletValidationException(List<String> problems, List<? extends Throwable> causes) {
        this(problems, causes.isEmpty() ? null : causes.get(0));
        causes.stream().skip(1).forEach(this::addSuppressed);
    }

    private InletValidationException(List<String> problems, Throwable cause) {
        super(format(problems), cause);
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("An InletValidationException needs at least one problem.");
        }
        this.problems = Collections.unmodifiableList(problems);
    }

    public List<String> problems() {
        return problems;
    }

    private static String format(List<String> problems) {
        if (problems.size() == 1) {
            return problems.get(0);
        }
        StringBuilder sb =
                new StringBuilder("The pipeline has ").append(problems.size()).append(" problems:");
        for (int i = 0; i < problems.size(); i++) {
            sb.append("\n  ").append(i + 1).append(". ").append(problems.get(i));
        }
        return sb.toString();
    }
}
