package io.inlet.core.testing;

import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.flink.table.api.DataTypes;

/** Small tables for tests: a shop's orders (with shards), customers and an unkeyed log. */
public final class ShopTables {

    private ShopTables() {}

    public static TableDescriptor orders(String database, String table) {
        return TableDescriptor.builder(TableId.of(database, table))
                .column("id", DataTypes.BIGINT())
                .column("customer", DataTypes.STRING())
                .column("amount", DataTypes.DECIMAL(10, 2))
                .column("status", DataTypes.STRING())
                .column("created", DataTypes.TIMESTAMP(3))
                .primaryKey("id")
                .build();
    }

    public static final TableDescriptor ORDERS = orders("shop", "orders");

    public static final TableDescriptor CUSTOMERS = TableDescriptor.builder(TableId.of("shop", "customers"))
            .column("id", DataTypes.INT())
            .column("name", DataTypes.STRING())
            .column("email", DataTypes.STRING())
            .primaryKey("id")
            .build();

    public static final TableDescriptor AUDIT_LOG = TableDescriptor.builder(TableId.of("shop", "audit_log"))
            .column("at", DataTypes.TIMESTAMP(3))
            .column("message", DataTypes.STRING())
            .build();
}
