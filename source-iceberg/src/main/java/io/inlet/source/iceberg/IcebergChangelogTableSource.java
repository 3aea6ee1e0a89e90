package io.inlet.source.iceberg;

import io.inlet.annotation.PublicEvolving;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.data.RowData;

/**
 * A streaming SQL read of an Iceberg table as its changelog, {@code +I}, {@code -U}/{@code +U} and
 * {@code -D} ({@link ChangelogMode#all()}), so that an aggregate or an upsert sink downstream stays
 * right. The {@code inlet-iceberg} catalog returns it for {@code 'streaming' = 'true'}.
 */
@PublicEvolving
public final class IcebergChangelogTableSource implements ScanTableSource {

    private final IcebergChangelogSource source;

    public IcebergChangelogTableSource(IcebergChangelogSource source) {
        this.source = source;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.all();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(ProviderContext provider, StreamExecutionEnvironment env) {
                // The planner's uids where it gives them (compiled plans), else none, as its own operators.
                return source.createStream(
                        env, name -> provider.generateUid(name).orElse(null));
            }

            @Override
            public boolean isBounded() {
                return false;
            }
        };
    }

    @Override
    public DynamicTableSource copy() {
        return new IcebergChangelogTableSource(source);
    }

    @Override
    public String asSummaryString() {
        return "Inlet Iceberg changelog of " + source.table();
    }
}
