package io.inlet.examples;

import io.inlet.shim.IcebergCatalogs;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.sink.FlinkSink;
import org.apache.iceberg.flink.source.FlinkSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.apache.flink.table.api.Expressions.$;

/**
 * Job jar entry point: one Iceberg catalog used from Flink SQL, the Table API and the DataStream
 * API, on any Flink runtime including those without Hadoop.
 *
 * <ul>
 *   <li>SQL: {@code CREATE CATALOG} of type {@code inlet-iceberg} (or Iceberg's own {@code
 *       iceberg}, which works here because the jar relocates the HadoopUtils shim), tables created,
 *       rows upserted and selected;
 *   <li>Table API: a filter and projection over the catalog's table, written to another table;
 *   <li>DataStream API: Iceberg's {@code FlinkSource} and {@code FlinkSink} on table loaders from
 *       {@link IcebergCatalogs}, copying a table.
 * </ul>
 *
 * <p>Settings ({@link JobSettings}): {@code catalog.<option>} are the catalog's options ({@code
 * catalog.catalog-type}, default {@code hadoop}; {@code catalog.warehouse}, required; {@code
 * catalog.uri}, {@code catalog.hadoop.*}, ...); {@code sql.catalog-type} is the SQL catalog type,
 * {@code inlet-iceberg} (default) or {@code iceberg}; {@code database} defaults to {@code shop};
 * {@code apis} names the parts to run, {@code sql,table-api,datastream} (default; the later parts
 * read the table the SQL part writes).
 */
public final class IcebergApis {

    private IcebergApis() {}

    public static void main(String[] args) throws Exception {
        JobSettings settings = JobSettings.of(
                args,
                Map.of(
                        "catalog.catalog-type",
                        "hadoop",
                        "sql.catalog-type",
                        "inlet-iceberg",
                        "database",
                        "shop",
                        "apis",
                        "sql,table-api,datastream"));
        List<String> apis = List.of(settings.get("apis").split("\\s*,\\s*"));
        if (!List.of("sql", "table-api", "datastream").containsAll(apis) || !apis.contains("sql")) {
            throw new IllegalArgumentException("apis: " + settings.get("apis")
                    + " is not a list of sql, table-api and datastream that holds sql (the others read its table)");
        }
        Map<String, String> catalog = new LinkedHashMap<>(settings.withPrefix("catalog."));
        settings.required("catalog.warehouse", "the Iceberg warehouse, e.g. hdfs://namenode:8020/warehouse");
        String db = settings.get("database");

        // 1. Flink SQL.
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql("CREATE CATALOG lake WITH (" + withClause(settings.get("sql.catalog-type"), catalog) + ")");
        tEnv.executeSql("CREATE DATABASE IF NOT EXISTS lake.`" + db + "`");
        tEnv.executeSql("CREATE TABLE IF NOT EXISTS lake.`" + db
                + "`.orders (id BIGINT, customer STRING, amount DECIMAL(10, 2),"
                + " PRIMARY KEY (id) NOT ENFORCED) WITH ('format-version' = '2', 'write.upsert.enabled' = 'true')");
        tEnv.executeSql("INSERT INTO lake.`" + db
                        + "`.orders VALUES (1, 'anna', 19.90), (2, 'bob', 5.00), (3, 'carla', 120.00)")
                .await();
        tEnv.executeSql("INSERT INTO lake.`" + db + "`.orders VALUES (2, 'bob', 7.50)")
                .await(); // an upsert
        print(
                "sql",
                tEnv.executeSql("SELECT id, customer, amount FROM lake.`" + db + "`.orders ORDER BY id")
                        .collect());

        if (apis.contains("table-api")) {
            tableApi(tEnv, db);
        }
        if (apis.contains("datastream")) {
            datastream(tEnv, catalog, db);
        }
    }

    /** 2. The Table API. */
    private static void tableApi(TableEnvironment tEnv, String db) throws Exception {
        tEnv.executeSql("CREATE TABLE IF NOT EXISTS lake.`" + db + "`.big_orders (id BIGINT, customer STRING)");
        Table big = tEnv.from("lake.`" + db + "`.orders")
                .filter($("amount").isGreater(10))
                .select($("id"), $("customer"));
        big.executeInsert("lake.`" + db + "`.big_orders").await();
        print(
                "table-api",
                tEnv.from("lake.`" + db + "`.big_orders")
                        .orderBy($("id"))
                        .execute()
                        .collect());
    }

    /** 3. The DataStream API, with table loaders that carry their own Hadoop configuration. */
    private static void datastream(TableEnvironment tEnv, Map<String, String> catalog, String db) throws Exception {
        tEnv.executeSql("CREATE TABLE IF NOT EXISTS lake.`" + db
                + "`.order_copies (id BIGINT, customer STRING, amount DECIMAL(10, 2))");
        // Streaming mode, with a bounded read: the sink commits when the input ends.
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        TableLoader orders = IcebergCatalogs.tableLoader("lake", catalog, db, "orders");
        TableLoader copies = IcebergCatalogs.tableLoader("lake", catalog, db, "order_copies");
        DataStream<RowData> rows = FlinkSource.forRowData()
                .env(env)
                .tableLoader(orders)
                .streaming(false)
                .build();
        FlinkSink.forRowData(rows).tableLoader(copies).append();
        env.execute("inlet example: Iceberg through the DataStream API");
        print(
                "datastream",
                tEnv.executeSql("SELECT id, customer, amount FROM lake.`" + db + "`.order_copies ORDER BY id")
                        .collect());
    }

    private static String withClause(String type, Map<String, String> catalog) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("type", type);
        options.putAll(catalog);
        return options.entrySet().stream()
                .map(e -> "'" + e.getKey().replace("'", "''") + "' = '"
                        + e.getValue().replace("'", "''") + "'")
                .collect(Collectors.joining(", "));
    }

    private static void print(String api, CloseableIterator<Row> rows) throws Exception {
        try (CloseableIterator<Row> it = rows) {
            while (it.hasNext()) {
                System.out.println("[" + api + "] " + it.next());
            }
        }
    }
}
