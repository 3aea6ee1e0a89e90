package io.inlet.source.iceberg.internal;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class DeletedKeysTest {

    private static final Schema SCHEMA = new Schema(
            List.of(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get())),
            Set.of(1));

    private static DataFile fileWithIds(long low, long high) {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath("/tmp/f-" + low + ".parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withMetrics(new Metrics(
                        10L,
                        null,
                        null,
                        null,
                        null,
                        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), low)),
                        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), high))))
                .build();
    }

    @Test
    void aRowIsDeletedWhenItsKeyIsAmongTheKeysWhateverItsOtherColumns() {
        DeletedKeys keys = new DeletedKeys(SCHEMA, Set.of(1));
        assertThat(keys.keySchema().columns())
                .extracting(Types.NestedField::name)
                .containsExactly("id");
        keys.add(GenericRowData.of(7L));
        keys.add(GenericRowData.of(42L));
        assertThat(keys.deletes(GenericRowData.of(7L, StringData.fromString("x"))))
                .isTrue();
        assertThat(keys.deletes(GenericRowData.of(8L, StringData.fromString("x"))))
                .isFalse();
    }

    @Test
    void aFileWhoseKeyBoundsHoldNoneOfTheKeysNeedNotBeRead() {
        DeletedKeys keys = new DeletedKeys(SCHEMA, Set.of(1));
        keys.add(GenericRowData.of(150L));
        keys.add(GenericRowData.of(900L));
        assertThat(keys.mayDeleteFrom(fileWithIds(1, 100))).isFalse();
        assertThat(keys.mayDeleteFrom(fileWithIds(101, 200))).isTrue();
        assertThat(keys.mayDeleteFrom(fileWithIds(200, 899))).isFalse();
        assertThat(keys.mayDeleteFrom(fileWithIds(900, 900))).isTrue();
        assertThat(new DeletedKeys(SCHEMA, Set.of(1)).mayDeleteFrom(fileWithIds(1, 100)))
                .as("no keys")
                .isFalse();
    }

    @Test
    void aKeyOfAnotherTypeOrSeveralColumnsReadsEveryFileItCouldReach() {
        DeletedKeys byName = new DeletedKeys(SCHEMA, Set.of(2));
        byName.add(GenericRowData.of(StringData.fromString("zed")));
        assertThat(byName.mayDeleteFrom(fileWithIds(1, 100))).isTrue();
        assertThat(byName.deletes(GenericRowData.of(3L, StringData.fromString("zed"))))
                .isTrue();
        DeletedKeys both = new DeletedKeys(SCHEMA, Set.of(1, 2));
        both.add(GenericRowData.of(3L, StringData.fromString("zed")));
        assertThat(both.mayDeleteFrom(fileWithIds(500, 600))).isTrue();
        assertThat(both.deletes(GenericRowData.of(3L, StringData.fromString("zed"))))
                .isTrue();
        assertThat(both.deletes(GenericRowData.of(3L, StringData.fromString("amy"))))
                .isFalse();
    }
}
