package io.inlet.sink.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericAppenderFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Real Iceberg data and equality-delete files of a two-column table keyed by id, for committer tests. */
public final class TestFiles {

    /** {@code id INT NOT NULL} (the key), {@code v STRING}. */
    public static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.IntegerType.get()),
                    Types.NestedField.optional(2, "v", Types.StringType.get())),
            Set.of(1));

    private TestFiles() {}

    /** Writers of data files and of equality deletes by id. */
    public static GenericAppenderFactory appenders() {
        return new GenericAppenderFactory(
                SCHEMA, PartitionSpec.unpartitioned(), new int[] {1}, SCHEMA.select("id"), null);
    }

    /** A data file of one row. */
    public static DataFile dataFile(Table table, GenericAppenderFactory files, int id, String v) throws Exception {
        EncryptedOutputFile out = table.encryption()
                .encrypt(table.io()
                        .newOutputFile(
                                table.locationProvider().newDataLocation("data-" + UUID.randomUUID() + ".avro")));
        DataWriter<Record> writer = files.newDataWriter(out, FileFormat.AVRO, null);
        try (DataWriter<Record> w = writer) {
            GenericRecord r = GenericRecord.create(SCHEMA);
            r.setField("id", id);
            r.setField("v", v);
            w.write(r);
        }
        return writer.toDataFile();
    }

    /** An equality delete of one key. */
    public static DeleteFile deleteOfKey(Table table, GenericAppenderFactory files, int id) throws Exception {
        EncryptedOutputFile out = table.encryption()
                .encrypt(table.io()
                        .newOutputFile(
                                table.locationProvider().newDataLocation("eq-delete-" + UUID.randomUUID() + ".avro")));
        EqualityDeleteWriter<Record> writer = files.newEqDeleteWriter(out, FileFormat.AVRO, null);
        try (EqualityDeleteWriter<Record> w = writer) {
            GenericRecord key = GenericRecord.create(SCHEMA.select("id"));
            key.setField("id", id);
            w.write(key);
        }
        return writer.toDeleteFile();
    }

    /** The table's rows as "id=v", sorted, read with Iceberg's generic reader. */
    public static List<String> rows(Table table) throws Exception {
        table.refresh();
        List<String> out = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(r -> out.add(r.getField("id") + "=" + r.getField("v")));
        }
        out.sort(String::compareTo);
        return out;
    }
}
