package io.inlet.testing;

import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A private MariaDB server with a ROW binlog, the MySQL binlog source of Inlet's tests: its own data
 * directory, on 127.0.0.1 and a free port, root without a password, server time zone UTC. Installed
 * from Debian's {@code mariadb-server} package when the binaries are missing and the harness runs as
 * root.
 *
 * <p>Use {@link MariaDbExtension} to share one per test JVM; each test makes its own database with
 * {@link #createDatabase()}.
 */
public final class MariaDbServer extends ServiceProcess implements ExtensionContext.Store.CloseableResource {

    private static final String[] SERVER_BINARIES = {"/usr/sbin/mariadbd", "/usr/bin/mariadbd", "/usr/sbin/mysqld"};
    private static final String[] INSTALL_DB_BINARIES = {"/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db"};

    private final int port;
    private final Map<String, String> overrides;

    private MariaDbServer(Path workDir, int port, Map<String, String> overrides) {
        super("mariadb", workDir);
        this.port = port;
        this.overrides = overrides;
    }

    /** Starts a server on a free port. */
    public static MariaDbServer start() {
        return FreePorts.startRetryingTakenPorts(() -> start(FreePorts.next()));
    }

    /** Starts a server on the given port (fails with the server's log when it cannot). */
    public static MariaDbServer start(int port) {
        return start(port, Map.of());
    }

    /**
     * Starts a private server with changed settings, for tests of misconfigured servers: each
     * entry replaces the {@code [mysqld]} setting of that name; a null value removes it (e.g.
     * {@code log_bin} for a server without a binlog).
     */
    public static MariaDbServer startWith(Map<String, String> overrides) {
        return start(FreePorts.next(), overrides);
    }

    private static MariaDbServer start(int port, Map<String, String> overrides) {
        Path dir = newWorkDir("inlet-mariadb-", "MariaDB");
        MariaDbServer server = new MariaDbServer(dir, port, overrides);
        server.startServer();
        return server;
    }

    private void startServer() {
        try {
            ensureInstalled(); // installs MariaDB, with its install-db binary, where it is missing
            String installDb = findFirst(INSTALL_DB_BINARIES);
            Path cnf = workDir().resolve("my.cnf");
            Files.createDirectories(workDir().resolve("data"));
            Files.createDirectories(workDir().resolve("tmp"));
            Files.writeString(cnf, config(), StandardCharsets.UTF_8);
            String user = System.getProperty("user.name");
            List<String> install = new ArrayList<>(List.of(
                    installDb,
                    "--defaults-file=" + cnf,
                    "--user=" + user,
                    "--auth-root-authentication-method=normal",
                    "--skip-test-db"));
            runToCompletion("mariadb-install-db", install, 120);
        } catch (IOException | InterruptedException e) {
            throw startFailure(e.toString(), e);
        }
        launchServer();
    }

    /**
     * Kills the server at once, as a crash or an OOM kill would: connections are cut without a word.
     * {@link #restart()} brings it back with its data.
     */
    public void crash() {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts the server again on the same port and data after {@link #crash()}. */
    public void restart() {
        launchServer();
    }

    /** Starts mariadbd on the installed data directory and waits until it takes connections. */
    private void launchServer() {
        try {
            String mariadbd = ensureInstalled();
            launch(List.of(
                    mariadbd,
                    "--defaults-file=" + workDir().resolve("my.cnf"),
                    "--user=" + System.getProperty("user.name")));
        } catch (IOException | InterruptedException e) {
            throw startFailure(e.toString(), e);
        }
        awaitReady();
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + 60_000_000_000L;
        SQLException lastError = null;
        while (System.nanoTime() < deadline) {
            if (!isAlive()) {
                throw startFailure("mariadbd exited", null);
            }
            try (Connection c = DriverManager.getConnection(
                    jdbcUrl("") + "&connectTimeout=2000&socketTimeout=2000", rootUser(), rootPassword())) {
                return;
            } catch (SQLException e) {
                lastError = e;
            }
            try {
                Thread.sleep(100); // polling the server's readiness, not a timing assumption
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw startFailure("interrupted", e);
            }
        }
        throw startFailure("no connection within 60 s: " + lastError, lastError);
    }

    private String config() {
        Path d = workDir();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("datadir", d.resolve("data").toString());
        settings.put("socket", d.resolve("mysqld.sock").toString());
        settings.put("pid-file", d.resolve("mysqld.pid").toString());
        settings.put("log-error", d.resolve("error.log").toString());
        // A temporary directory of its own: a starting server deletes the #sql* files it finds in its
        // tmpdir, and with the shared /tmp it deleted those of another server bootstrapping in a
        // parallel test JVM ("Unknown table 'mysql.tmp_proxies_priv'", install-db failed).
        settings.put("tmpdir", d.resolve("tmp").toString());
        settings.put("port", String.valueOf(port));
        settings.put("bind-address", "127.0.0.1");
        settings.put("skip-name-resolve", "");
        settings.put("server_id", "1");
        settings.put("log_bin", d.resolve("data").resolve("mysql-bin").toString());
        settings.put("binlog_format", "ROW");
        settings.put("binlog_row_image", "FULL");
        settings.put("character-set-server", "utf8mb4");
        settings.put("collation-server", "utf8mb4_general_ci");
        settings.put("default-time-zone", "+00:00");
        settings.put("max_connections", "500");
        settings.put("innodb_buffer_pool_size", "128M");
        settings.put("innodb_flush_log_at_trx_commit", "2");
        settings.put("sync_binlog", "0");
        overrides.forEach((k, v) -> {
            if (v == null) {
                settings.remove(k);
            } else {
                settings.put(k, v);
            }
        });
        StringBuilder cnf = new StringBuilder("[mysqld]\n");
        settings.forEach(
                (k, v) -> cnf.append(k).append(v.isEmpty() ? "" : "=" + v).append('\n'));
        cnf.append("[client]\nsocket=").append(d.resolve("mysqld.sock")).append('\n');
        return cnf.toString();
    }

    @Override
    protected String extraLogs() {
        return "\n--- last lines of " + workDir().resolve("error.log") + " ---\n"
                + tail(workDir().resolve("error.log"), 40);
    }

    /** The server binary; installs Debian's mariadb-server first when it is missing. */
    private String ensureInstalled() throws IOException, InterruptedException {
        String found = findFirstOrNull(SERVER_BINARIES);
        if (found != null && findFirstOrNull(INSTALL_DB_BINARIES) != null) {
            return found;
        }
        if (!"root".equals(System.getProperty("user.name")) || !Files.isExecutable(Path.of("/usr/bin/apt-get"))) {
            throw new IllegalStateException(
                    "MariaDB is not installed (no mariadbd in " + String.join(", ", SERVER_BINARIES)
                            + ") and the harness cannot install it (needs root and apt-get). Install it:"
                            + " sudo apt-get install -y mariadb-server");
        }
        runToCompletion("apt-get update", List.of("apt-get", "update", "-q"), 600);
        runToCompletion(
                "apt-get install mariadb-server",
                List.of("apt-get", "install", "-y", "-q", "--no-install-recommends", "mariadb-server"),
                900);
        return findFirst(SERVER_BINARIES);
    }

    private static String findFirst(String[] candidates) {
        String f = findFirstOrNull(candidates);
        if (f == null) {
            throw new IllegalStateException("None of " + String.join(", ", candidates) + " exists.");
        }
        return f;
    }

    private static String findFirstOrNull(String[] candidates) {
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return c;
            }
        }
        return null;
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String rootUser() {
        return "root";
    }

    public String rootPassword() {
        return "";
    }

    /** A JDBC URL of the database ({@code ""} for none); over TLS (unverified) when the server requires it. */
    public String jdbcUrl(String database) {
        boolean tls = "ON".equalsIgnoreCase(overrides.get("require_secure_transport"));
        return "jdbc:mysql://127.0.0.1:" + port + "/" + database
                + (tls
                        ? "?sslMode=REQUIRED&enabledTLSProtocols=TLSv1.2,TLSv1.3"
                        : "?useSSL=false&allowPublicKeyRetrieval=true")
                + "&serverTimezone=UTC&characterEncoding=utf8";
    }

    /** A root connection to the database ({@code ""} for none). */
    public Connection connection(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database), rootUser(), rootPassword());
    }

    /** A fresh, empty database (utf8mb4) with a unique name. */
    public String createDatabase() {
        String name = TestNames.unique("db");
        execute("", "CREATE DATABASE `" + name + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
        return name;
    }

    /** Runs statements as root in the database, in order. */
    public void execute(String database, String... statements) {
        try (Connection c = connection(database);
                Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed in database '" + database + "': " + e.getMessage(), e);
        }
    }

    /** A fresh user with a password and the given privileges ({@code "SELECT, RELOAD"}) on *.*. */
    public void createUser(String user, String password, String privileges) {
        execute(
                "",
                "CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password.replace("'", "''") + "'",
                "GRANT " + privileges + " ON *.* TO '" + user + "'@'%'");
    }

    /** The current binlog file and position ({@code SHOW MASTER STATUS}). */
    public BinlogPosition binlogPosition() {
        try (Connection c = connection("");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            if (!rs.next()) {
                throw new IllegalStateException("SHOW MASTER STATUS returned nothing: the binlog is off.");
            }
            return new BinlogPosition(rs.getString(1), rs.getLong(2));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A binlog file and position; ordered as the server writes them. */
    public static final class BinlogPosition implements Comparable<BinlogPosition> {
        public final String file;
        public final long position;

        BinlogPosition(String file, long position) {
            this.file = file;
            this.position = position;
        }

        @Override
        public int compareTo(BinlogPosition o) {
            int byFile = file.compareTo(o.file);
            return byFile != 0 ? byFile : Long.compare(position, o.position);
        }

        @Override
        public String toString() {
            return file + ":" + position;
        }
    }
}
