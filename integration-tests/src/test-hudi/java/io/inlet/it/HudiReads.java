package io.inlet.it;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Hudi tables read back with Hudi's own Flink reader, and what their timelines and files show. */
final class HudiReads {

    private HudiReads() {}

    static String ddl(String name, Path tablePath, RowType type, List<String> primaryKey, Map<String, String> extra) {
        return ddl(name, tablePath.toUri().toString(), type, primaryKey, extra);
    }

    static String ddl(String name, String tableUri, RowType type, List<String> primaryKey, Map<String, String> extra) {
        StringBuilder sb = new StringBuilder("CREATE TABLE `" + name + "` (");
        for (int i = 0; i < type.getFieldCount(); i++) {
            sb.append(i == 0 ? "" : ", ")
                    .append('`')
                    .append(type.getFieldNames().get(i))
                    .append("` ")
                    .append(type.getTypeAt(i).asSerializableString());
        }
        sb.append(", PRIMARY KEY (")
                .append(primaryKey.stream().map(k -> "`" + k + "`").collect(Collectors.joining(", ")))
                .append(") NOT ENFORCED) WITH ('connector' = 'hudi', 'path' = '")
                .append(tableUri)
                .append("', 'table.type' = 'MERGE_ON_READ', 'hoodie.embed.timeline.server' = 'false'");
        extra.forEach(
                (k, v) -> sb.append(", '").append(k).append("' = '").append(v).append('\''));
        return sb.append(')').toString();
    }

    private static boolean noFilesYet(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (String.valueOf(t.getMessage()).contains("No files found for reading")) {
                return true;
            }
        }
        return false;
    }

    /** Every row of the table as a batch snapshot read (log files merged into base files). */
    static List<Row> read(Path tablePath, RowType type, List<String> primaryKey) {
        return read(tablePath.toUri().toString(), type, primaryKey, Map.of());
    }

    /** The same for a table anywhere, with more options for the reader (e.g. {@code hadoop.fs.s3a.*}). */
    static List<Row> read(String tablePath, RowType type, List<String> primaryKey, Map<String, String> extra) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        t.getConfig().set("table.exec.resource.default-parallelism", "1"); // leave slots to the pipeline under test
        t.executeSql(ddl("h", tablePath, type, primaryKey, extra));
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = t.executeSql("SELECT * FROM h").collect()) {
            it.forEachRemaining(rows::add);
        } catch (Exception e) {
            if (noFilesYet(e)) {
                return List.of(); // commits so far wrote no file (an empty first checkpoint): no rows yet
            }
            throw new IllegalStateException("Reading the Hudi table at " + tablePath + " failed", e);
        }
        return rows;
    }

    /** A streaming read from the earliest commit; close the result to stop it. */
    static TableResult stream(Path tablePath, RowType type, List<String> primaryKey) {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        t.getConfig().set("table.exec.resource.default-parallelism", "1");
        t.executeSql(ddl(
                "h",
                tablePath,
                type,
                primaryKey,
                Map.of(
                        "read.streaming.enabled", "true",
                        "read.start-commit", "earliest",
                        "read.streaming.check-interval", "1",
                        "changelog.enabled", "true")));
        return t.executeSql("SELECT * FROM h");
    }

    /** Completed instants of an action in the table's timeline, e.g. "commit" (a compaction on MOR) or "rollback". */
    static List<String> instants(Path tablePath, String action) {
        try (Stream<Path> files = Files.list(tablePath.resolve(".hoodie"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith("." + action))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Base (parquet) files of the table, which only compaction writes on MOR with Flink. */
    static List<Path> baseFiles(Path tablePath) {
        try (Stream<Path> files = Files.walk(tablePath)) {
            return files.filter(p -> !p.toString().contains("/.hoodie/")
                            && p.getFileName().toString().endsWith(".parquet"))
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
