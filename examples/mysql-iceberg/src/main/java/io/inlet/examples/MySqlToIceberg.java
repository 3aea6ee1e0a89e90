package io.inlet.examples;

import java.util.Map;

/**
 * Job jar entry point: MySQL tables (snapshot, then binlog) into Iceberg v2 upsert tables, one per
 * captured table. Settings as in {@link InletJob}, with {@code source.type = mysql-cdc} and {@code
 * sink.type = iceberg}; the options are those of the {@code mysql-cdc} source and the {@code
 * iceberg} sink.
 *
 * <pre>{@code
 * # Hadoop catalog on HDFS
 * flink run inlet-examples-mysql-iceberg-0.1.0-job.jar \
 *     --source.hostname db --source.username cdc --source.password '${env:MYSQL_PASSWORD}' \
 *     --source.database-name shop --source.table-name '.*' --source.server-id 5400-5404 \
 *     --sink.warehouse hdfs://namenode:8020/warehouse
 * # AWS Glue
 *     ... --sink.catalog-impl org.apache.iceberg.aws.glue.GlueCatalog --sink.warehouse s3://lake/warehouse \
 *         --sink.catalog.io-impl org.apache.iceberg.aws.s3.S3FileIO
 * }</pre>
 */
public final class MySqlToIceberg {

    private MySqlToIceberg() {}

    public static void main(String[] args) throws Exception {
        InletJob.run(
                args,
                Map.of(
                        "source.type",
                        "mysql-cdc",
                        "sink.type",
                        "iceberg",
                        "pipeline.name",
                        "inlet: mysql-cdc to iceberg"));
    }
}
