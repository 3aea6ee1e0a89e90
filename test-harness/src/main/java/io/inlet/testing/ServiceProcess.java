package io.inlet.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server the harness runs in its own process, with its output in a log file. Knows how to report a
 * failed start with the tail of that log, and how to stop (and clean up after) the server, also when
 * the test JVM exits without closing it.
 */
public abstract class ServiceProcess implements AutoCloseable {

    private final String name;
    private final Path workDir;
    private final Path logFile;
    private Process process;
    private final Thread shutdownHook;

    private boolean hookAdded;

    protected ServiceProcess(String name, Path workDir) {
        this.name = name;
        this.workDir = workDir;
        this.logFile = workDir.resolve(name + ".log");
        this.shutdownHook = new Thread(this::destroy, "stop-" + name);
    }

    public String name() {
        return name;
    }

    public Path workDir() {
        return workDir;
    }

    /** The file the server's output goes to. */
    public Path logFile() {
        return logFile;
    }

    /** Starts the process, its output appended to {@link #logFile()}. */
    protected void launch(List<String> command) throws IOException {
        launch(command, java.util.Map.of());
    }

    /** Starts the process with these environment variables added. */
    protected void launch(List<String> command, java.util.Map<String, String> environment) throws IOException {
        ProcessBuilder pb =
                new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(environment);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        process = pb.start();
        if (!hookAdded) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
            hookAdded = true;
        }
    }

    /** Kills the process at once (SIGKILL: no shutdown, open connections are cut), keeping its files. */
    protected synchronized void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** The running process, once launched. */
    protected Process process() {
        return process;
    }

    protected boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Runs a command to completion (set-up steps), failing with its output when it fails. */
    protected void runToCompletion(String what, List<String> command, long timeoutSeconds)
            throws IOException, InterruptedException {
        Path out = workDir.resolve(what.replaceAll("[^A-Za-z0-9]+", "-") + ".log");
        Process p = new ProcessBuilder(command)
                .directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(name + ": " + what + " did not finish within " + timeoutSeconds
                    + " s. Its output:\n" + tail(out, 40));
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(name + ": " + what + " failed with exit code " + p.exitValue() + " ("
                    + shortCommand(command) + "). Its output:\n" + tail(out, 40));
        }
    }

    /** The command line with long arguments (class paths) elided, for messages. */
    private static String shortCommand(List<String> command) {
        StringBuilder sb = new StringBuilder();
        for (String arg : command) {
            sb.append(sb.length() == 0 ? "" : " ").append(arg.length() > 120 ? "<" + arg.length() + " chars>" : arg);
        }
        return sb.toString();
    }

    /** One look at whether a starting server answers: null when it is ready, else what it answered. */
    @FunctionalInterface
    protected interface ReadinessCheck {
        String notReadyBecause() throws IOException, InterruptedException;
    }

    /**
     * Polls the server until the check finds it ready; fails with the log's tail when its process exits, or
     * when it is not ready within the timeout (the last answer or connection failure named).
     */
    protected void awaitReady(String where, long timeoutSeconds, ReadinessCheck check) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        Exception lastError = null;
        while (System.nanoTime() < deadline) {
            if (!isAlive()) {
                throw startFailure(name + "'s JVM exited", null);
            }
            try {
                String notReady = check.notReadyBecause();
                if (notReady == null) {
                    return;
                }
                lastError = new IllegalStateException(notReady);
            } catch (IOException e) {
                lastError = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw startFailure("interrupted", e);
            }
            try {
                Thread.sleep(200); // polling the server's readiness, not a timing assumption
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw startFailure("interrupted", e);
            }
        }
        throw startFailure("no answer on " + where + " within " + timeoutSeconds + " s: " + lastError, lastError);
    }

    /** The failure to report when the server did not start: the reason and its own log's tail. */
    protected IllegalStateException startFailure(String reason, Throwable cause) {
        String logs = tail(logFile, 40) + extraLogs();
        close(); // the message carries the logs; nothing of the failed server is left behind
        return new IllegalStateException(
                name + " did not start: " + reason + "\n--- last lines of " + logFile + " ---\n" + logs, cause);
    }

    /** More log text to show with a start failure, for servers that log elsewhere too. */
    protected String extraLogs() {
        return "";
    }

    public static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(" + file + " does not exist)";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    private synchronized void destroy() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the server and deletes its working directory. */
    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException ignored) {
            // the JVM is shutting down; the hook runs anyway
        }
        deleteRecursively(workDir);
    }

    protected static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> paths = new ArrayList<>();
            walk.sorted(Comparator.reverseOrder()).forEach(paths::add);
            for (Path p : paths) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // Leave it to the OS's temp cleaning; a stopped server's files harm nothing.
        }
    }

    /** The java binary of this JVM. */
    /** A new directory for a server's files, e.g. {@code newWorkDir("inlet-s3-", "the S3 server")}. */
    protected static Path newWorkDir(String prefix, String what) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot create a directory for " + what, e);
        }
    }

    protected static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
