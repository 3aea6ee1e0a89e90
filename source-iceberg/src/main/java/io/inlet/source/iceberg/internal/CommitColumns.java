package io.inlet.source.iceberg.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.List;

/**
 * Three columns the readers append to every row between the file read and the pairing: the id, the
 * sequence number and the commit time of the snapshot that made the change, so that a consumer which needs
 * them (the {@code iceberg} ChangeSource's positions) gets them per change. Every row of one epoch
 * carries the same values, so they do not change which rows the pairing finds equal.
 */
@Internal
public final class CommitColumns {

    /** How many columns are appended. */
    public static final int COUNT = 3;

    private static final String SNAPSHOT_ID = "$inlet_snapshot_id";
    private static final String SEQUENCE = "$inlet_snapshot_sequence_number";
    private static final String COMMIT_MILLIS = "$inlet_snapshot_commit_millis";

    private CommitColumns() {}

    /** The table's row type with the columns at its end. */
    public static RowType appendTo(RowType rowType) {
        List<RowType.RowField> fields = new ArrayList<>(rowType.getFields());
        fields.add(new RowType.RowField(SNAPSHOT_ID, new BigIntType(false)));
        fields.add(new RowType.RowField(SEQUENCE, new BigIntType(false)));
        fields.add(new RowType.RowField(COMMIT_MILLIS, new BigIntType(false)));
        return new RowType(false, fields);
    }

    /** The values of the columns for one snapshot. */
    public static GenericRowData of(long snapshotId, long sequenceNumber, long commitMillis) {
        return GenericRowData.of(snapshotId, sequenceNumber, commitMillis);
    }

    /** The snapshot id of a row with the columns, at its table arity. */
    public static long snapshotId(RowData row, int tableArity) {
        return row.getLong(tableArity);
    }

    /** The snapshot sequence number of a row with the columns, at its table arity. */
    public static long sequenceNumber(RowData row, int tableArity) {
        return row.getLong(tableArity + 1);
    }

    /** The snapshot commit time (epoch ms) of a row with the columns, at its table arity. */
    public static long commitMillis(RowData row, int tableArity) {
        return row.getLong(tableArity + 2);
    }
}
