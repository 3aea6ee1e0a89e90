package io.inlet.source.mysql.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.source.assigners.state.PendingSplitsState;
import org.apache.flink.cdc.connectors.mysql.source.split.MySqlSplit;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.cdc.debezium.DebeziumDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Inlet's one contact with Flink CDC's API, for the Flink CDC 3.1 line ({@code
 * org.apache.flink:flink-connector-mysql-cdc}, packages {@code org.apache.flink.cdc}, Flink 1.18 and
 * 1.19). The build compiles one of the two copies of this class, each against its own line: this
 * one, or the one for Flink CDC 2.4 ({@code com.ververica.cdc}, Flink 1.17). Both take the same
 * {@link CdcSourceSpec} and make the same source; only the packages differ.
 */
@Internal
public final class FlinkCdc {

    /** The Flink CDC line this copy is compiled against. */
    public static final String LINE = "3.1";

    private FlinkCdc() {}

    /** Flink CDC's incremental-snapshot MySQL source, watched (see {@link WatchedMySqlSource}). */
    public static Source<ChangeEvent, ?, ?> mySqlSource(
            CdcSourceSpec spec, ChangeEventDeserializer deserializer, String where) {
        MySqlSource<ChangeEvent> source = MySqlSource.<ChangeEvent>builder()
                .hostname(spec.hostname)
                .port(spec.port)
                .username(spec.username)
                .password(spec.password)
                .databaseList(spec.databaseList.toArray(new String[0]))
                .tableList(spec.tableList.toArray(new String[0]))
                .serverId(spec.serverId)
                .serverTimeZone(spec.serverTimeZone)
                .startupOptions(startupOptions(spec))
                .splitSize(spec.splitSize)
                .fetchSize(spec.fetchSize)
                .heartbeatInterval(spec.heartbeatInterval)
                .connectTimeout(spec.connectTimeout)
                .connectMaxRetries(spec.connectMaxRetries)
                .connectionPoolSize(spec.connectionPoolSize)
                // DDL records reach the deserializer, which stops the job on a change it cannot follow.
                .includeSchemaChanges(true)
                .scanNewlyAddedTableEnabled(spec.scanNewlyAddedTables)
                .jdbcProperties(spec.jdbcProperties)
                .debeziumProperties(spec.debeziumProperties)
                .deserializer(new Deserializer(deserializer))
                .build();
        return new WatchedMySqlSource<MySqlSplit, PendingSplitsState>(
                source,
                new Splits(deserializer),
                deserializer.getProducedType(),
                where,
                spec.startupMode == io.inlet.source.mysql.MySqlCdcSource.StartupMode.INITIAL);
    }

    private static StartupOptions startupOptions(CdcSourceSpec spec) {
        switch (spec.startupMode) {
            case LATEST_OFFSET:
                return StartupOptions.latest();
            case EARLIEST_OFFSET:
                return StartupOptions.earliest();
            case TIMESTAMP:
                return StartupOptions.timestamp(spec.startupTimestampMillis);
            case SPECIFIC_OFFSET:
                return StartupOptions.specificOffset(spec.specificOffsetFile, spec.specificOffsetPos);
            default:
                return StartupOptions.initial();
        }
    }

    /** The binlog split handed out after a snapshot lists the snapshot's finished splits. */
    private static final class Splits implements WatchedMySqlSource.Splits<MySqlSplit> {
        private static final long serialVersionUID = 1L;

        /** The same instance as the source's deserializer (one object graph, serialized together). */
        private final ChangeEventDeserializer deserializer;

        Splits(ChangeEventDeserializer deserializer) {
            this.deserializer = deserializer;
        }

        @Override
        public void tablesOf(MySqlSplit split) {
            if (split.isBinlogSplit()) {
                deserializer.restoreTables(
                        split.asBinlogSplit().getTableSchemas(),
                        split.asBinlogSplit().getStartingOffset().getFilename(),
                        split.asBinlogSplit().getStartingOffset().getPosition());
            }
        }

        @Override
        public boolean isBinlogSplitAfterSnapshot(MySqlSplit split) {
            return split.isBinlogSplit() && split.asBinlogSplit().getTotalFinishedSplitSize() > 0;
        }
    }

    /** Inlet's deserializer as this line's {@link DebeziumDeserializationSchema}. */
    private static final class Deserializer implements DebeziumDeserializationSchema<ChangeEvent> {
        private static final long serialVersionUID = 1L;

        private final ChangeEventDeserializer delegate;

        Deserializer(ChangeEventDeserializer delegate) {
            this.delegate = delegate;
        }

        @Override
        public void deserialize(SourceRecord record, Collector<ChangeEvent> out) {
            delegate.deserialize(record, out);
        }

        @Override
        public TypeInformation<ChangeEvent> getProducedType() {
            return delegate.getProducedType();
        }
    }
}
