package io.inlet.core.table;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TableIdTest {

    @Test
    void parsesDatabaseAndTable() {
        TableId id = TableId.parse("inventory.orders");
        assertThat(id.database()).isEqualTo("inventory");
        assertThat(id.table()).isEqualTo("orders");
        assertThat(id).isEqualTo(TableId.of("inventory", "orders"));
        assertThat(id.identifier()).isEqualTo("inventory.orders");
    }

    @Test
    void parsesTableAlone() {
        TableId id = TableId.parse("orders");
        assertThat(id.database()).isNull();
        assertThat(id.identifier()).isEqualTo("orders");
    }

    @Test
    void quotesPartsWithDotsAndRoundTrips() {
        TableId id = TableId.of("my.db", "odd`name");
        assertThat(id.identifier()).isEqualTo("`my.db`.`odd``name`");
        assertThat(TableId.parse(id.identifier())).isEqualTo(id);
    }

    @Test
    void rejectsMalformedIds() {
        assertThatThrownBy(() -> TableId.parse("a.b.c"))
                .hasMessageContaining("'a.b.c'")
                .hasMessageContaining("back-ticks");
        assertThatThrownBy(() -> TableId.parse("a.")).hasMessageContaining("empty part");
        assertThatThrownBy(() -> TableId.parse("`a.b")).hasMessageContaining("not closed");
        assertThatThrownBy(() -> TableId.of("", "t")).hasMessageContaining("database");
    }

    @Test
    void ordersByDatabaseThenTable() {
        assertThat(TableId.of("a", "z")).isLessThan(TableId.of("b", "a"));
        assertThat(TableId.of("z")).isLessThan(TableId.of("a", "a"));
    }
}
