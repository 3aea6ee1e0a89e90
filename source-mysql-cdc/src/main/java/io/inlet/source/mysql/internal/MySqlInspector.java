package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.InletValidationException;
import io.inlet.core.event.SourcePosition;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;
import io.inlet.source.mysql.SslMode;

import org.apache.flink.table.types.DataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Checks, before a job starts, that a MySQL server can be captured, and reads the captured tables'
 * schemas: reachable with the credentials, binlog on in ROW format with FULL row images, replication
 * privileges granted, the time zone agreed, table patterns matching tables that have primary keys
 * and columns of types Inlet maps. Every problem is reported with its fix.
 */
@Internal
public final class MySqlInspector {

    private static final Logger LOG = LoggerFactory.getLogger(MySqlInspector.class);

    private static final Set<String> SYSTEM_DATABASES =
            Set.of("mysql", "information_schema", "performance_schema", "sys");

    /** What the inspection found. */
    public static final class Result {
        public final List<TableDescriptor> tables;
        public final ZoneId serverZone;
        /** The binlog file and position when the schemas were read: they describe the tables from here on. */
        public final String binlogFile;

        public final long binlogPosition;
        /** The fractional digits of each TIME column, by {@code database.table.column}. */
        public final Map<String, Integer> timePrecisions;

        Result(
                List<TableDescriptor> tables,
                ZoneId serverZone,
                String binlogFile,
                long binlogPosition,
                Map<String, Integer> timePrecisions) {
            this.tables = tables;
            this.serverZone = serverZone;
            this.binlogFile = binlogFile;
            this.binlogPosition = binlogPosition;
            this.timePrecisions = timePrecisions;
        }
    }

    private final String hostname;
    private final int port;
    private final String username;
    private final String password;
    private final Properties jdbcProperties;
    private final int connectTimeoutMillis;
    private final SslMode sslMode;

    /** @param jdbcProperties with TLS set as the source's 'ssl.mode' says (for the messages) */
    public MySqlInspector(
            String hostname,
            int port,
            String username,
            String password,
            Properties jdbcProperties,
            int connectTimeoutMillis,
            SslMode sslMode) {
        this.hostname = hostname;
        this.port = port;
        this.username = username;
        this.password = password;
        this.jdbcProperties = jdbcProperties;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.sslMode = sslMode;
    }

    private String where() {
        return "MySQL at " + hostname + ":" + port;
    }

    /** Opens a connection, turning refusals into messages that name the option to fix. */
    public Connection connect() {
        Properties p = new Properties();
        p.putAll(jdbcProperties);
        p.setProperty("user", username);
        p.setProperty("password", password);
        p.putIfAbsent("connectTimeout", String.valueOf(connectTimeoutMillis));
        p.putIfAbsent("socketTimeout", String.valueOf(Math.max(connectTimeoutMillis, 60_000)));
        if (!p.containsKey("sslMode")) {
            p.putIfAbsent("useSSL", "false");
        }
        if (!sslMode.encrypts()) {
            p.putIfAbsent("allowPublicKeyRetrieval", "true");
        }
        p.putIfAbsent("characterEncoding", "utf8");
        String url = "jdbc:mysql://" + hostname + ":" + port + "/";
        try {
            return DriverManager.getConnection(url, p);
        } catch (SQLException e) {
            String all = Causes.chain(e);
            boolean denied = e.getErrorCode() == 1045 || "28000".equals(e.getSQLState());
            if (all.contains("insecure transport")
                    || all.contains("require_secure_transport")
                    || all.contains("SSL connection is required")
                    || (denied && !sslMode.encrypts() && requiresTls(url, p))) {
                throw new InletValidationException(
                        where() + " requires encrypted connections (require_secure_transport), and 'ssl.mode' is '"
                                + sslMode.key() + "' (" + firstLine(e) + ") Set 'ssl.mode' = 'required',"
                                + " or 'verify-ca' with 'ssl.truststore' to check the server's certificate.");
            }
            if (sslMode.encrypts()
                    && (all.contains("SSL")
                            || all.contains("TLS")
                            || all.contains("certificate")
                            || all.contains("PKIX")
                            || all.contains("handshake"))) {
                throw new InletValidationException("Cannot open an encrypted connection to " + where()
                        + " ('ssl.mode' = '" + sslMode.key()
                        + "'): " + firstLine(e) + " (" + Causes.root(e) + ") Check that the server has TLS on, and that"
                        + " 'ssl.truststore' holds the CA of its certificate"
                        + (sslMode == SslMode.VERIFY_IDENTITY ? " and the certificate names '" + hostname + "'" : "")
                        + ".");
            }
            if (e.getErrorCode() == 1045 || "28000".equals(e.getSQLState())) {
                throw new InletValidationException(where() + " refused user '" + username + "': " + firstLine(e)
                        + " Check 'username' and 'password'.");
            }
            throw new InletValidationException("Cannot connect to " + where() + ": " + firstLine(e)
                    + " Check 'hostname' and 'port', and that the server accepts connections from this machine.");
        }
    }

    /**
     * MariaDB refuses a plain login to a server that requires TLS with 'Access denied', not saying
     * why: when TLS is off, find out whether an encrypted login would be taken (the credentials then
     * travel encrypted, as the user's plain attempt did not).
     */
    private boolean requiresTls(String url, Properties plain) {
        Properties p = new Properties();
        p.putAll(plain);
        p.setProperty("sslMode", "REQUIRED");
        p.setProperty("enabledTLSProtocols", "TLSv1.2,TLSv1.3");
        p.remove("useSSL");
        try (Connection c = DriverManager.getConnection(url, p);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@GLOBAL.require_secure_transport")) {
            return rs.next() && rs.getBoolean(1);
        } catch (SQLException ignored) {
            return false;
        }
    }

    private static String firstLine(SQLException e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        String line = (nl < 0 ? m : m.substring(0, nl)).trim();
        return line.endsWith(".") ? line : line + ".";
    }

    /**
     * Runs every check and reads the schemas of the tables whose database matches {@code
     * databaseRegex} and whose name matches {@code tableRegex} (both in full).
     *
     * @throws InletValidationException listing every problem found
     */
    public Result inspect(
            String databaseRegex,
            String tableRegex,
            @Nullable String excludeColumnsRegex,
            boolean tinyInt1IsBoolean,
            @Nullable String configuredZone,
            TimePrecisionMode timeMode) {
        List<String> problems = new ArrayList<>();
        try (Connection c = connect()) {
            boolean binlogOn = checkBinlog(c, problems);
            checkPrivileges(c, problems);
            ZoneId zone = checkZone(c, configuredZone, problems);
            Map<String, Integer> timePrecisions = new LinkedHashMap<>();
            List<TableDescriptor> tables = readTables(
                    c,
                    databaseRegex,
                    tableRegex,
                    excludeColumnsRegex,
                    tinyInt1IsBoolean,
                    timeMode,
                    timePrecisions,
                    problems);
            // Read after the schemas: rows from before this position may have an older shape; a row from
            // here on that has another shape is a schema change (made after the schemas were read).
            SourcePosition binlog = binlogOn ? binlogPosition(c, problems) : null;
            if (!problems.isEmpty()) {
                throw new InletValidationException(problems);
            }
            return new Result(tables, zone, binlog.fileOrTopic(), binlog.offset(), timePrecisions);
        } catch (SQLException e) {
            throw new InletValidationException("Reading from " + where() + " failed: " + firstLine(e), e);
        }
    }

    /** The current binlog file and position, as {@code SHOW MASTER STATUS} gives them. */
    @Nullable
    private SourcePosition binlogPosition(Connection c, List<String> problems) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW MASTER STATUS")) {
            if (rs.next()) {
                return SourcePosition.binlog(rs.getString(1), rs.getLong(2), 0);
            }
        } catch (SQLException e) {
            problems.add("User '" + username + "' cannot run SHOW MASTER STATUS at " + where() + ": " + firstLine(e)
                    + " Grant REPLICATION CLIENT (BINLOG MONITOR on MariaDB).");
            return null;
        }
        problems.add(where() + " answers SHOW MASTER STATUS with nothing: its binary log is off. Start the server with"
                + " log_bin set.");
        return null;
    }

    /** Whether the binlog is on (and problems with its format, if any). */
    private boolean checkBinlog(Connection c, List<String> problems) throws SQLException {
        Map<String, String> vars = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('log_bin', 'binlog_format',"
                                + " 'binlog_row_image')")) {
            while (rs.next()) {
                vars.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
            }
        }
        if (!"ON".equalsIgnoreCase(vars.get("log_bin"))) {
            problems.add(where() + " has its binary log off (log_bin = " + vars.get("log_bin")
                    + "), so there are no changes to"
                    + " read. Start the server with log_bin (and server_id) set, e.g. in my.cnf: log_bin=mysql-bin,"
                    + " binlog_format=ROW, binlog_row_image=FULL.");
            return false;
        }
        if (!"ROW".equalsIgnoreCase(vars.get("binlog_format"))) {
            problems.add(where() + " writes its binlog as binlog_format = " + vars.get("binlog_format")
                    + "; CDC needs ROW." + " Set binlog_format=ROW in my.cnf (or SET GLOBAL binlog_format = 'ROW' and"
                    + " reconnect clients).");
        }
        String image = vars.get("binlog_row_image");
        if (image != null && !"FULL".equalsIgnoreCase(image)) {
            problems.add(where() + " writes binlog_row_image = " + image
                    + "; CDC needs FULL, or updates and deletes lose the"
                    + " columns they did not change. Set binlog_row_image=FULL in my.cnf (or SET GLOBAL"
                    + " binlog_row_image = 'FULL').");
        }
        return true;
    }

    private void checkPrivileges(Connection c, List<String> problems) throws SQLException {
        Set<String> global = new LinkedHashSet<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GRANTS")) {
            while (rs.next()) {
                String grant = rs.getString(1).toUpperCase(Locale.ROOT);
                int on = grant.indexOf(" ON ");
                if (!grant.startsWith("GRANT ") || on < 0) {
                    continue;
                }
                String target = grant.substring(on + 4).trim();
                if (!target.startsWith("*.*")) {
                    continue;
                }
                for (String p : grant.substring(6, on).split(",")) {
                    global.add(p.trim());
                }
            }
        }
        if (global.contains("ALL PRIVILEGES") || global.contains("ALL")) {
            return;
        }
        List<String> missing = new ArrayList<>();
        if (!(global.contains("REPLICATION SLAVE") || global.contains("REPLICATION REPLICA"))) {
            missing.add("REPLICATION SLAVE");
        }
        boolean client =
                global.contains("REPLICATION CLIENT") || global.contains("BINLOG MONITOR") || global.contains("SUPER");
        if (!client) {
            missing.add(isMariaDb(c) ? "BINLOG MONITOR" : "REPLICATION CLIENT");
        }
        if (!missing.isEmpty()) {
            problems.add("User '" + username + "' lacks the privileges " + missing + " on *.* at " + where()
                    + ", without which it cannot read the binlog. Grant them: GRANT SELECT, RELOAD, SHOW DATABASES, "
                    + String.join(", ", missing) + " ON *.* TO '" + username + "'@'%';");
        }
    }

    private static boolean isMariaDb(Connection c) throws SQLException {
        return c.getMetaData()
                .getDatabaseProductVersion()
                .toLowerCase(Locale.ROOT)
                .contains("mariadb");
    }

    /** The zone that converts TIMESTAMP columns, agreed with the server's current offset. */
    private ZoneId checkZone(Connection c, @Nullable String configured, List<String> problems) throws SQLException {
        String sessionZone;
        String systemZone;
        int offsetSeconds;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@session.time_zone, @@system_time_zone, TIMESTAMPDIFF(SECOND,"
                        + " UTC_TIMESTAMP(), NOW())")) {
            rs.next();
            sessionZone = rs.getString(1);
            systemZone = rs.getString(2);
            offsetSeconds = rs.getInt(3);
        }
        ZoneOffset serverOffset = ZoneOffset.ofTotalSeconds(offsetSeconds);
        if (configured != null) {
            ZoneId zone;
            try {
                zone = ZoneId.of(configured);
            } catch (DateTimeException e) {
                problems.add("'server-time-zone' = '" + configured
                        + "' is not a time zone id; use e.g. 'UTC' or 'Europe/Berlin'.");
                return ZoneOffset.UTC;
            }
            ZoneOffset configuredOffset = zone.getRules().getOffset(Instant.now());
            if (!configuredOffset.equals(serverOffset)) {
                problems.add("'server-time-zone' = '" + configured + "' (now " + configuredOffset
                        + ") differs from the time zone of "
                        + where() + " (" + sessionZone + ", now " + serverOffset
                        + "): TIMESTAMP columns would be"
                        + " shifted. Set 'server-time-zone' to the server's zone, or leave it" + " unset to use"
                        + " the server's.");
            }
            return zone;
        }
        ZoneId zone = null;
        String candidate = "SYSTEM".equalsIgnoreCase(sessionZone) ? systemZone : sessionZone;
        try {
            zone = ZoneId.of(candidate);
            if (!zone.getRules().getOffset(Instant.now()).equals(serverOffset)) {
                zone = null; // an abbreviation such as CET or EST that Java reads differently
            }
        } catch (DateTimeException | NullPointerException e) {
            zone = null;
        }
        if (zone == null) {
            zone = serverOffset;
            LOG.warn(
                    "The time zone of {} is '{}', which is no Java zone id; using its current offset {}. Set"
                            + " 'server-time-zone' to the zone's id if it observes daylight saving time.",
                    where(),
                    candidate,
                    serverOffset);
        }
        return zone;
    }

    private List<TableDescriptor> readTables(
            Connection c,
            String databaseRegex,
            String tableRegex,
            @Nullable String excludeColumnsRegex,
            boolean tinyInt1IsBoolean,
            TimePrecisionMode timeMode,
            Map<String, Integer> timePrecisions,
            List<String> problems)
            throws SQLException {
        Pattern dbPattern = compile("database-name", databaseRegex, problems);
        Pattern tablePattern = compile("table-name", tableRegex, problems);
        Pattern excludePattern =
                excludeColumnsRegex == null ? null : compile("exclude-columns", excludeColumnsRegex, problems);
        if (dbPattern == null || tablePattern == null || (excludeColumnsRegex != null && excludePattern == null)) {
            return List.of();
        }

        Set<String> databases = new TreeSet<>();
        Map<TableId, String> tableComments = new LinkedHashMap<>();
        try (Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_COMMENT FROM information_schema.TABLES"
                                + " WHERE TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_SCHEMA, TABLE_NAME")) {
            while (rs.next()) {
                String db = rs.getString(1);
                if (SYSTEM_DATABASES.contains(db.toLowerCase(Locale.ROOT))) {
                    continue;
                }
                databases.add(db);
                if (dbPattern.matcher(db).matches()
                        && tablePattern.matcher(rs.getString(2)).matches()) {
                    tableComments.put(TableId.of(db, rs.getString(2)), rs.getString(3));
                }
            }
        }
        if (tableComments.isEmpty()) {
            List<String> dbs = databases.stream()
                    .filter(d -> dbPattern.matcher(d).matches())
                    .collect(Collectors.toList());
            String tablesThere = dbs.isEmpty() ? "" : "; tables in " + dbs + ": " + tablesIn(c, dbs);
            problems.add("No table of " + where() + " matches 'database-name' = '" + databaseRegex
                    + "' and 'table-name' = '"
                    + tableRegex + "' (both must match whole names). Databases the user '" + username + "' can see: "
                    + databases + tablesThere + ". Fix the patterns, or grant SELECT on the tables.");
            return List.of();
        }

        List<TableDescriptor> out = new ArrayList<>();
        for (Map.Entry<TableId, String> t : tableComments.entrySet()) {
            TableDescriptor d = readTable(
                    c, t.getKey(), t.getValue(), excludePattern, tinyInt1IsBoolean, timeMode, timePrecisions, problems);
            if (d != null) {
                out.add(d);
            }
        }
        return out;
    }

    private String tablesIn(Connection c, List<String> dbs) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE"
                        + " = 'BASE TABLE' ORDER BY 1, 2")) {
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && names.size() < 50) {
                    if (dbs.contains(rs.getString(1))) {
                        names.add(rs.getString(1) + "." + rs.getString(2));
                    }
                }
            }
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    @Nullable
    private TableDescriptor readTable(
            Connection c,
            TableId id,
            String comment,
            @Nullable Pattern exclude,
            boolean tinyInt1IsBoolean,
            TimePrecisionMode timeMode,
            Map<String, Integer> timePrecisions,
            List<String> problems)
            throws SQLException {
        TableDescriptor.Builder b = TableDescriptor.builder(id).comment(comment);
        List<String> kept = new ArrayList<>();
        try (PreparedStatement ps =
                c.prepareStatement("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH,"
                        + " NUMERIC_PRECISION, NUMERIC_SCALE,"
                        + " DATETIME_PRECISION, IS_NULLABLE, COLUMN_COMMENT FROM information_schema.COLUMNS"
                        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
            ps.setString(1, id.database());
            ps.setString(2, id.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (exclude != null
                            && exclude.matcher(id.database() + "." + id.table() + "." + name)
                                    .matches()) {
                        continue;
                    }
                    DataType type = MySqlTypes.toFlink(
                            rs.getString(2),
                            rs.getString(3),
                            longOrNull(rs, 4),
                            longOrNull(rs, 5),
                            longOrNull(rs, 6),
                            longOrNull(rs, 7),
                            tinyInt1IsBoolean,
                            timeMode);
                    if ("time".equalsIgnoreCase(rs.getString(2))) {
                        Long digits = longOrNull(rs, 7);
                        timePrecisions.put(
                                id.database() + "." + id.table() + "." + name, digits == null ? 0 : digits.intValue());
                    }
                    if (type == null) {
                        problems.add("Column " + id + "." + name + " has the type " + rs.getString(3)
                                + ", which Inlet cannot map"
                                + " to a Flink type. Leave it out with 'exclude-columns' = '"
                                + Regexes.literal(id.database() + "." + id.table() + "." + name) + "'.");
                        continue;
                    }
                    if ("NO".equalsIgnoreCase(rs.getString(8))) {
                        type = type.notNull();
                    }
                    b.column(name, type, rs.getString(9));
                    kept.add(name);
                }
            }
        }
        List<String> pk = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                        + " AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION")) {
            ps.setString(1, id.database());
            ps.setString(2, id.table());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pk.add(rs.getString(1));
                }
            }
        }
        if (pk.isEmpty()) {
            problems.add("Table " + id
                    + " has no primary key. Inlet reads snapshots in chunks of the key and applies changes"
                    + " by it. Add a primary key, or leave the table out with 'table-name'.");
            return null;
        }
        for (String k : pk) {
            if (!kept.contains(k)) {
                problems.add("The primary-key column " + id + "." + k + " is excluded by 'exclude-columns'; keep it.");
                return null;
            }
        }
        if (kept.isEmpty()) {
            return null;
        }
        return b.primaryKey(pk).build();
    }

    @Nullable
    private static Long longOrNull(ResultSet rs, int i) throws SQLException {
        long v = rs.getLong(i);
        return rs.wasNull() ? null : v;
    }

    @Nullable
    private static Pattern compile(String option, String regex, List<String> problems) {
        try {
            return Pattern.compile(regex);
        } catch (java.util.regex.PatternSyntaxException e) {
            problems.add("'" + option + "' = '" + regex + "' is not a valid regular expression: " + e.getDescription()
                    + ".");
            return null;
        }
    }
}
