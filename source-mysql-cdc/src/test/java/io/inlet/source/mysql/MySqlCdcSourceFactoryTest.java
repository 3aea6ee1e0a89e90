package io.inlet.source.mysql;

import io.inlet.core.InletValidationException;
import io.inlet.core.spi.FactoryDiscovery;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MySqlCdcSourceFactoryTest {

    private static Map<String, String> options() {
        Map<String, String> o = new HashMap<>();
        o.put("hostname", "db.internal");
        o.put("username", "cdc");
        o.put("password", "very-secret");
        o.put("database-name", "shop");
        return o;
    }

    @Test
    void isFoundByItsIdentifierAndTakesFlinkCdcKeys() {
        Map<String, String> o = options();
        o.put("table-name", "orders|customers");
        o.put("scan.startup.mode", "latest-offset");
        o.put("scan.incremental.snapshot.chunk.size", "4096");
        o.put("server-id", "5400-5403");
        o.put("jdbc.properties.useSSL", "true");
        o.put("debezium.snapshot.locking.mode", "none");
        assertThat(FactoryDiscovery.createSource("mysql-cdc", o))
                .isInstanceOf(MySqlCdcSource.class)
                .hasToString("MySqlCdcSource{cdc@db.internal:3306, database-name=shop,"
                        + " table-name=orders|customers, scan.startup.mode=latest-offset}");
        o.put("ssl.mode", "disabled");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining("'jdbc.properties.useSSL' = 'true' contradicts 'ssl.mode' = 'disabled'");
        o.remove("jdbc.properties.useSSL");
        o.put("jdbc.properties.sslMode", "REQUIRED");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining("Set TLS with 'ssl.mode' (and 'ssl.truststore'), not 'jdbc.properties.sslMode'");
        o.remove("jdbc.properties.sslMode");
        o.put("ssl.mode", "verify-ca");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining(
                        "'ssl.mode' = 'verify-ca' checks the server's certificate and needs 'ssl.truststore'");
    }

    @Test
    void aStartAtAnEarlierBinlogPositionMayRepeatChangesTheSinksHave() {
        for (String mode : new String[] {"initial", "latest-offset"}) {
            Map<String, String> o = options();
            o.put("scan.startup.mode", mode);
            assertThat(FactoryDiscovery.createSource("mysql-cdc", o).mayRepeatChanges())
                    .as(mode)
                    .isFalse();
        }
        Map<String, String> o = options();
        o.put("scan.startup.mode", "timestamp");
        o.put("scan.startup.timestamp-millis", "1700000000000");
        assertThat(FactoryDiscovery.createSource("mysql-cdc", o).mayRepeatChanges())
                .isTrue();
        o.put("scan.startup.mode", "earliest-offset");
        assertThat(FactoryDiscovery.createSource("mysql-cdc", o).mayRepeatChanges())
                .isTrue();
    }

    @Test
    void anExplicitBadRecordActionWinsAndUseSslMeansWhatConnectorJSays() {
        Map<String, String> o = options();
        o.put("dead-letter.path", "file:///tmp/dlq");
        o.put("bad-record.action", "fail");
        assertThat(FactoryDiscovery.createSource("mysql-cdc", o)).isInstanceOf(MySqlCdcSource.class);
        o.remove("bad-record.action");
        o.put("jdbc.properties.useSSL", "maybe");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining("'jdbc.properties.useSSL' = 'maybe' is neither true nor false");
        o.put("jdbc.properties.useSSL", "yes");
        o.put("ssl.mode", "disabled");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining("'jdbc.properties.useSSL' = 'yes' contradicts 'ssl.mode' = 'disabled'");
    }

    @Test
    void toStringNeverShowsThePassword() {
        assertThat(FactoryDiscovery.createSource("mysql-cdc", options()).toString())
                .doesNotContain("very-secret");
    }

    @Test
    void reportsMissingAndInvalidOptionsWithTheirKeys() {
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", Map.of("hostname", "h")))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("needs the option 'username'")
                .hasMessageContaining("needs the option 'password'")
                .hasMessageContaining("needs the option 'database-name'");
        Map<String, String> o = options();
        o.put("scan.startup.mode", "specific-offset");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining("'specific-offset' needs 'scan.startup.specific-offset.file' and"
                        + " 'scan.startup.specific-offset.pos'");
        o.put("scan.startup.mode", "snapshot-only");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining(
                        "'scan.startup.mode' = 'snapshot-only' is unknown; use one of initial, latest-offset,");
        Map<String, String> policy = options();
        policy.put("exclude.schema.changes", "drop.column");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", policy))
                .hasMessageContaining("'exclude.schema.changes' chooses the schema changes a job follows, but"
                        + " 'schema-change.behavior' = 'fail' follows none");
        policy.put("schema-change.behavior", "try-evolve");
        assertThat(FactoryDiscovery.createSource("mysql-cdc", policy)).isInstanceOf(MySqlCdcSource.class);
        policy.put("include.schema.changes", "add.column, alter.column.typ");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", policy))
                .hasMessageContaining("'include.schema.changes' = 'add.column, alter.column.typ':"
                        + " 'alter.column.typ' is unknown");
        Map<String, String> typo = options();
        typo.put("server_id", "1");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", typo))
                .hasMessageContaining("has no option 'server_id'")
                .hasMessageContaining("server-id")
                .hasMessageContaining("keys starting with");
    }

    @Test
    void refusesConnectionSettingsThroughDebeziumProperties() {
        Map<String, String> o = options();
        o.put("debezium.database.password", "other");
        assertThatThrownBy(() -> FactoryDiscovery.createSource("mysql-cdc", o))
                .hasMessageContaining("not 'debezium.database.password'")
                .hasMessageNotContaining("other");
    }
}
