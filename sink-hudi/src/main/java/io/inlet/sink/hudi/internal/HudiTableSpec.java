package io.inlet.sink.hudi.internal;

import io.inlet.annotation.Internal;

import org.apache.flink.table.types.logical.RowType;

import java.io.Serializable;
import java.util.List;
import java.util.Map;

/**
 * What Hudi's table factory needs to write or read one table: its name, row type, column comments,
 * record key, partition fields and options. Immutable; ships to task managers with the operators
 * that read the table.
 */
@Internal
public final class HudiTableSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    final String name;
    final RowType type;
    final Map<String, String> comments;
    final List<String> primaryKey;
    final List<String> partitionKeys;
    final Map<String, String> options;

    private HudiTableSpec(
            String name,
            RowType type,
            Map<String, String> comments,
            List<String> primaryKey,
            List<String> partitionKeys,
            Map<String, String> options) {
        this.name = name;
        this.type = type;
        this.comments = Map.copyOf(comments);
        this.primaryKey = List.copyOf(primaryKey);
        this.partitionKeys = List.copyOf(partitionKeys);
        this.options = Map.copyOf(options);
    }

    /**
     * @param name Hudi's table name (it also names Hudi's operator uids)
     * @param type the rows' type, in order
     * @param comments column comments, by name (may be empty)
     */
    public static HudiTableSpec of(
            String name,
            RowType type,
            Map<String, String> comments,
            List<String> primaryKey,
            List<String> partitionKeys,
            Map<String, String> options) {
        return new HudiTableSpec(name, type, comments, primaryKey, partitionKeys, options);
    }

    public String name() {
        return name;
    }

    public RowType type() {
        return type;
    }
}
