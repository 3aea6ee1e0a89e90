package io.inlet.core.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Installs {@link ForklessLocalFileSystem} before the first test class of a JVM whose class path has
 * Hadoop. Registered for every test class by JUnit's extension auto-detection (the service file in
 * this test-jar, switched on in the root pom's Surefire configuration).
 */
public final class ForklessLocalFiles implements BeforeAllCallback {

    private static volatile boolean done;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (done) {
            return;
        }
        synchronized (ForklessLocalFiles.class) {
            if (!done) {
                try {
                    if (hasHadoop()) {
                        ForklessLocalFileSystem.install();
                    }
                } catch (Throwable t) {
                    // Only slower without it: the tests must not fail for a speed-up.
                    System.err.println("ForklessLocalFileSystem not installed: " + t);
                } finally {
                    done = true;
                }
            }
        }
    }

    private static boolean hasHadoop() {
        try {
            Class.forName("org.apache.hadoop.fs.RawLocalFileSystem", false, ForklessLocalFiles.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
