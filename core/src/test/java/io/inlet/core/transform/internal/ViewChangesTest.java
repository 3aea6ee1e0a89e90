package io.inlet.core.transform.internal;

import io.inlet.core.event.ChangeEvent;
import io.inlet.core.testing.ShopTables;
import io.inlet.core.testing.TestRows;

import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Every case of an update across a filter, judged by both rows of the update. */
class ViewChangesTest {

    private static final LocalDateTime T0 = LocalDateTime.parse("2024-05-01T08:00:00");

    private final List<ChangeEvent> out = new ArrayList<>();
    private int dropped;
    private ViewChanges view;

    @BeforeEach
    void setUp() {
        view = new ViewChanges(
                TableSelector.of("filter", "shop\\.orders"),
                FilterExpression.parse("status = 'shipped'"),
                List.of(ShopTables.ORDERS, ShopTables.CUSTOMERS));
    }

    private static ChangeEvent order(RowKind kind, long id, String status) {
        return ChangeEvent.of(
                ShopTables.ORDERS.tableId(),
                TestRows.row(ShopTables.ORDERS, kind, id, "anna", new BigDecimal("1.00"), status, T0));
    }

    private void feed(ChangeEvent... events) {
        for (ChangeEvent e : events) {
            view.process(e, out::add, () -> dropped++);
        }
    }

    private List<String> emitted() {
        return out.stream()
                .map(e -> e.kind().shortString() + "("
                        + TestRows.format(
                                e.tableId().equals(ShopTables.ORDERS.tableId())
                                        ? ShopTables.ORDERS
                                        : ShopTables.CUSTOMERS,
                                e.row())
                        + ")")
                .collect(Collectors.toList());
    }

    @Test
    void anUpdateThatLeavesTheViewDeletesTheOldRow() {
        feed(order(RowKind.UPDATE_BEFORE, 1, "shipped"), order(RowKind.UPDATE_AFTER, 1, "returned"));
        assertThat(emitted()).containsExactly("-D(1, anna, 1.00, shipped, 2024-05-01T08:00)");
        assertThat(dropped).isEqualTo(1);
    }

    @Test
    void anUpdateThatEntersTheViewInsertsTheNewRow() {
        feed(order(RowKind.UPDATE_BEFORE, 1, "new"), order(RowKind.UPDATE_AFTER, 1, "shipped"));
        assertThat(emitted()).containsExactly("+I(1, anna, 1.00, shipped, 2024-05-01T08:00)");
    }

    @Test
    void anUpdateInsideTheViewStaysAnUpdateAndOneOutsideVanishes() {
        feed(
                order(RowKind.UPDATE_BEFORE, 1, "shipped"),
                order(RowKind.UPDATE_AFTER, 1, "shipped"),
                order(RowKind.UPDATE_BEFORE, 2, "new"),
                order(RowKind.UPDATE_AFTER, 2, "paid"));
        assertThat(emitted())
                .containsExactly(
                        "-U(1, anna, 1.00, shipped, 2024-05-01T08:00)", "+U(1, anna, 1.00, shipped, 2024-05-01T08:00)");
        assertThat(dropped).isEqualTo(2);
    }

    @Test
    void aPrimaryKeyChangeIsADeleteAndAnInsertEachJudgedOnItsRow() {
        feed(
                order(RowKind.UPDATE_BEFORE, 1, "shipped"),
                order(RowKind.UPDATE_AFTER, 7, "shipped"),
                order(RowKind.UPDATE_BEFORE, 2, "shipped"),
                order(RowKind.UPDATE_AFTER, 8, "new"),
                order(RowKind.UPDATE_BEFORE, 3, "new"),
                order(RowKind.UPDATE_AFTER, 9, "shipped"));
        assertThat(emitted())
                .containsExactly(
                        "-D(1, anna, 1.00, shipped, 2024-05-01T08:00)",
                        "+I(7, anna, 1.00, shipped, 2024-05-01T08:00)",
                        "-D(2, anna, 1.00, shipped, 2024-05-01T08:00)",
                        "+I(9, anna, 1.00, shipped, 2024-05-01T08:00)");
    }

    @Test
    void insertsAndDeletesAreJudgedByTheirRowAndOtherTablesPass() {
        ChangeEvent customer = ChangeEvent.of(
                ShopTables.CUSTOMERS.tableId(), TestRows.row(ShopTables.CUSTOMERS, RowKind.INSERT, 1, "anna", null));
        feed(
                order(RowKind.INSERT, 1, "shipped"),
                order(RowKind.INSERT, 2, "new"),
                customer,
                order(RowKind.DELETE, 1, "shipped"),
                order(RowKind.DELETE, 2, "new"));
        assertThat(out).hasSize(3).contains(customer);
        assertThat(emitted()).element(0).isEqualTo("+I(1, anna, 1.00, shipped, 2024-05-01T08:00)");
        assertThat(emitted()).element(2).isEqualTo("-D(1, anna, 1.00, shipped, 2024-05-01T08:00)");
        assertThat(dropped).isEqualTo(2);
    }

    @Test
    void aLoneUpdateAfterThatFailsDeletesByKeyAndALoneUpdateBeforeIsADelete() {
        feed(order(RowKind.UPDATE_AFTER, 1, "returned"), order(RowKind.UPDATE_AFTER, 2, "shipped"));
        feed(order(RowKind.UPDATE_BEFORE, 3, "shipped"));
        assertThat(out).hasSize(2); // the -U waits for its +U
        view.flush(out::add, () -> dropped++);
        assertThat(emitted())
                .containsExactly(
                        "-D(1, anna, 1.00, returned, 2024-05-01T08:00)",
                        "+U(2, anna, 1.00, shipped, 2024-05-01T08:00)",
                        "-D(3, anna, 1.00, shipped, 2024-05-01T08:00)");
    }

    @Test
    void aPendingUpdateBeforeIsJudgedAloneWhenAnotherChangeComesFirst() {
        feed(order(RowKind.UPDATE_BEFORE, 3, "shipped"), order(RowKind.INSERT, 4, "shipped"));
        assertThat(emitted())
                .containsExactly(
                        "-D(3, anna, 1.00, shipped, 2024-05-01T08:00)", "+I(4, anna, 1.00, shipped, 2024-05-01T08:00)");
    }

    @Test
    void anOldRowOfWhichOnlyTheKeyIsKnownMayHaveBeenInTheView() {
        // PostgreSQL without REPLICA IDENTITY FULL: the -U holds the key, its other columns unknown.
        ChangeEvent keyOnly = ChangeEvent.keyOnly(
                ShopTables.ORDERS.tableId(),
                1,
                TestRows.row(ShopTables.ORDERS, RowKind.UPDATE_BEFORE, 1L, null, null, null, null),
                ChangeEvent.UNKNOWN_TIMESTAMP,
                io.inlet.core.event.SourcePosition.none());
        feed(keyOnly, order(RowKind.UPDATE_AFTER, 1, "returned"));
        assertThat(emitted()).containsExactly("-D(1, null, null, null, null)");
        out.clear();
        feed(keyOnly, order(RowKind.UPDATE_AFTER, 1, "shipped"));
        assertThat(out).extracting(ChangeEvent::kind).containsExactly(RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER);
    }
}
