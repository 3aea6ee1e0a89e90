package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;

/** The chain of causes of a failure, in words for messages and logs. */
@Internal
final class Causes {

    private Causes() {}

    /** Every type and message of the chain of causes, for telling failures apart by what they say. */
    static String chain(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            sb.append(t.getClass().getName())
                    .append(": ")
                    .append(t.getMessage())
                    .append(' ');
        }
        return sb.toString();
    }

    /** The innermost cause, as {@code Type: message} ({@code Type} alone when it has no message). */
    static String root(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
