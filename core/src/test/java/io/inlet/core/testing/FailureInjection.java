package io.inlet.core.testing;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Failures that happen once per key, across restarts of the failing task (the key outlives the
 * task because the MiniCluster runs in the test's JVM).
 */
public final class FailureInjection {

    private static final Set<String> FIRED = ConcurrentHashMap.newKeySet();

    private FailureInjection() {}

    /** A fresh key. */
    public static String newKey() {
        return UUID.randomUUID().toString();
    }

    /** Throws {@link InjectedFailure} the first time it is called for this key. */
    public static void failOnce(String key, String what) {
        if (FIRED.add(key)) {
            throw new InjectedFailure(what);
        }
    }

    public static boolean fired(String key) {
        return FIRED.contains(key);
    }

    /** The exception an injected failure throws. */
    public static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String what) {
            super("Injected failure: " + what);
        }
    }
}
