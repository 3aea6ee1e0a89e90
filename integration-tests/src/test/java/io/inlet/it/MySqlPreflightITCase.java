package io.inlet.it;

import io.inlet.core.InletValidationException;
import io.inlet.core.table.TableDescriptor;
import io.inlet.source.mysql.MySqlCdcSource;
import io.inlet.testing.FreePorts;
import io.inlet.testing.MariaDbExtension;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.TestNames;

import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each check the MySQL source makes before a job starts, reproduced against a real server. */
@ExtendWith(MariaDbExtension.class)
class MySqlPreflightITCase {

    private static MySqlCdcSource.Builder source(MariaDbServer mysql, String db) {
        return MySqlCdcSource.builder()
                .hostname(mysql.host())
                .port(mysql.port())
                .username(mysql.rootUser())
                .password(mysql.rootPassword())
                .databaseList(db);
    }

    @Test
    void anUnreachableServerNamesHostAndPort() {
        int closed = FreePorts.next();
        assertThatThrownBy(() -> MySqlCdcSource.builder()
                        .hostname("127.0.0.1")
                        .port(closed)
                        .username("u")
                        .password("p")
                        .databaseList("d")
                        .connectTimeout(java.time.Duration.ofSeconds(3))
                        .build()
                        .discoverTables())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Cannot connect to MySQL at 127.0.0.1:" + closed)
                .hasMessageContaining("Check 'hostname' and 'port'");
    }

    @Test
    void badCredentialsNameTheUserButNotThePassword(MariaDbServer mysql) {
        String user = TestNames.unique("u");
        mysql.createUser(user, "right-password", "SELECT");
        assertThatThrownBy(() -> source(mysql, "x")
                        .username(user)
                        .password("wrong-password-123")
                        .build()
                        .discoverTables())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("refused user '" + user + "'")
                .hasMessageContaining("Check 'username' and 'password'")
                .hasMessageNotContaining("wrong-password-123");
    }

    @Test
    void aServerWithoutBinlogIsRefused() {
        Map<String, String> noBinlog = new HashMap<>();
        noBinlog.put("log_bin", null);
        try (MariaDbServer plain = MariaDbServer.startWith(noBinlog)) {
            String db = plain.createDatabase();
            plain.execute(db, "CREATE TABLE t (id INT PRIMARY KEY)");
            assertThatThrownBy(() -> source(plain, db).build().discoverTables())
                    .isInstanceOf(InletValidationException.class)
                    .hasMessageContaining("has its binary log off (log_bin = OFF)")
                    .hasMessageContaining("binlog_format=ROW");
        }
    }

    @Test
    void aStatementBinlogAndMinimalRowImagesAreRefused() {
        Map<String, String> settings = new HashMap<>();
        settings.put("binlog_format", "STATEMENT");
        settings.put("binlog_row_image", "MINIMAL");
        try (MariaDbServer misconfigured = MariaDbServer.startWith(settings)) {
            String db = misconfigured.createDatabase();
            misconfigured.execute(db, "CREATE TABLE t (id INT PRIMARY KEY)");
            assertThatThrownBy(() -> source(misconfigured, db).build().discoverTables())
                    .isInstanceOf(InletValidationException.class)
                    .satisfies(e -> assertThat(((InletValidationException) e).problems())
                            .hasSize(2))
                    .hasMessageContaining("binlog_format = STATEMENT; CDC needs ROW")
                    .hasMessageContaining("binlog_row_image = MINIMAL; CDC needs FULL");
        }
    }

    @Test
    void aUserWithoutReplicationPrivilegesIsToldWhatToGrant(MariaDbServer mysql) {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE t (id INT PRIMARY KEY)");
        String user = TestNames.unique("reader");
        mysql.createUser(user, "pw", "SELECT");
        assertThatThrownBy(() ->
                        source(mysql, db).username(user).password("pw").build().discoverTables())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("User '" + user + "' lacks the privileges [REPLICATION SLAVE, BINLOG MONITOR]")
                .hasMessageContaining(
                        "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO '" + user
                                + "'@'%'");
    }

    @Test
    void aTablePatternThatMatchesNothingListsWhatThereIs(MariaDbServer mysql) {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE orders (id INT PRIMARY KEY)", "CREATE TABLE customers (id INT PRIMARY KEY)");
        assertThatThrownBy(() -> source(mysql, db).tableList("order").build().discoverTables())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("No table of MySQL at 127.0.0.1:" + mysql.port() + " matches 'database-name' = '"
                        + db + "' and 'table-name' = 'order'")
                .hasMessageContaining(db + ".customers, " + db + ".orders");
    }

    @Test
    void aColumnOfAnUnmappableTypeFailsUnlessExcluded(MariaDbServer mysql) {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE places (id INT PRIMARY KEY, name VARCHAR(20), location POINT)");
        assertThatThrownBy(() -> source(mysql, db).build().discoverTables())
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("Column " + db + ".places.location has the type point, which Inlet cannot map")
                .hasMessageContaining("'exclude-columns' = '" + db + "\\.places\\.location'");

        List<TableDescriptor> tables = source(mysql, db)
                .excludeColumns(db + "\\.places\\.location")
                .build()
                .discoverTables();
        assertThat(tables.get(0).columnNames()).containsExactly("id", "name");
    }

    @Test
    void aTableWithoutPrimaryKeyIsRefused(MariaDbServer mysql) {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE log (at DATETIME, message TEXT)");
        assertThatThrownBy(() -> source(mysql, db).build().discoverTables())
                .hasMessageContaining("Table " + db + ".log has no primary key")
                .hasMessageContaining("leave the table out with 'table-name'");
    }

    @Test
    void aTimeZoneThatDiffersFromTheServersIsRefused(MariaDbServer mysql) {
        String db = mysql.createDatabase();
        mysql.execute(db, "CREATE TABLE t (id INT PRIMARY KEY, at TIMESTAMP NULL)");
        assertThatThrownBy(() ->
                        source(mysql, db).serverTimeZone("Asia/Tokyo").build().discoverTables())
                .hasMessageContaining(
                        "'server-time-zone' = 'Asia/Tokyo' (now +09:00) differs from the time zone of MySQL at")
                .hasMessageContaining("(+00:00, now Z)");
        assertThat(source(mysql, db).serverTimeZone("UTC").build().discoverTables())
                .hasSize(1);
    }

    @Test
    void theSchemaIsReadFaithfully(MariaDbServer mysql) {
        String db = mysql.createDatabase();
        ShopDatabase.create(mysql, db);
        List<TableDescriptor> tables = source(mysql, db).build().discoverTables();
        TableDescriptor orders = tables.stream()
                .filter(t -> t.tableId().table().equals("orders"))
                .findFirst()
                .get();
        assertThat(orders.primaryKey()).containsExactly("id");
        assertThat(orders.comment()).hasValue("orders of the shop");
        assertThat(orders.column("customer").get().comment()).hasValue("who ordered");
        assertThat(orders.column("note").get().type()).isEqualTo(DataTypes.STRING());
        assertThat(orders.column("created").get().type())
                .isEqualTo(DataTypes.TIMESTAMP(3).notNull());
        TableDescriptor all = tables.stream()
                .filter(t -> t.tableId().table().equals("all_types"))
                .findFirst()
                .get();
        assertThat(all.toRowType().asSummaryString())
                .isEqualTo("ROW<`id` INT NOT NULL, `c_bool` BOOLEAN, `c_tinyint1` BOOLEAN, `c_tinyint`"
                        + " TINYINT, `c_tinyint_u` SMALLINT,"
                        + " `c_smallint` SMALLINT, `c_smallint_u` INT, `c_mediumint` INT," + " `c_mediumint_u`"
                        + " INT, `c_int` INT,"
                        + " `c_int_u` BIGINT, `c_bigint` BIGINT, `c_bigint_u` DECIMAL(20, 0)," + " `c_decimal`"
                        + " DECIMAL(10, 2),"
                        + " `c_decimal_38` DECIMAL(38, 10), `c_decimal_65` STRING, `c_float` FLOAT,"
                        + " `c_double` DOUBLE,"
                        + " `c_char` CHAR(10), `c_varchar` VARCHAR(255), `c_text` STRING," + " `c_mediumtext`"
                        + " STRING,"
                        + " `c_binary` BINARY(4), `c_varbinary` VARBINARY(16), `c_blob` BYTES," + " `c_date`"
                        + " DATE, `c_time` TIME(0),"
                        + " `c_time3` TIME(3), `c_time6` TIME(6), `c_datetime` TIMESTAMP(0)," + " `c_datetime3`"
                        + " TIMESTAMP(3),"
                        + " `c_datetime6` TIMESTAMP(6), `c_timestamp` TIMESTAMP_LTZ(0)," + " `c_timestamp6`"
                        + " TIMESTAMP_LTZ(6),"
                        + " `c_year` INT, `c_enum` STRING, `c_set` STRING, `c_json` STRING," + " `c_bit1`"
                        + " BOOLEAN, `c_bit12` BINARY(2),"
                        + " `c_bit64` BINARY(8)> NOT NULL");
    }
}
