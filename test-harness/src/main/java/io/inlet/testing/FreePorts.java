package io.inlet.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.function.Supplier;

/** Free TCP ports on 127.0.0.1. */
public final class FreePorts {

    private FreePorts() {}

    /**
     * Starts a server on ports from {@link #next()}, again (up to three times) when its start failure
     * says a port was taken: {@code next()} probes a port and frees it, and a process of a parallel
     * test JVM or module can bind it before the server does.
     */
    public static <T> T startRetryingTakenPorts(Supplier<T> start) {
        for (int attempt = 1; ; attempt++) {
            try {
                return start.get();
            } catch (IllegalStateException e) {
                String m = String.valueOf(e.getMessage());
                boolean taken = m.contains("Address already in use") || m.contains("seems to be in use");
                if (attempt == 3 || !taken) {
                    throw e;
                }
            }
        }
    }

    /** A port that was free a moment ago; servers retry when another process takes it first. */
    public static int next() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on 127.0.0.1", e);
        }
    }
}
