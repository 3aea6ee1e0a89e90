package io.inlet.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1. */
public final class FreePorts {

    private FreePorts() {}

    /**
     * Whether a server's start failure says its port was taken: {@link #next()} probes a port and
     * frees it, and a process of a parallel test JVM or module can bind it before the server does.
     */
    public static boolean takenMeanwhile(IllegalStateException startFailure) {
        String m = String.valueOf(startFailure.getMessage());
        return m.contains("Address already in use") || m.contains("seems to be in use");
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
