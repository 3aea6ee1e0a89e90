package io.inlet.core.transform.internal;

import io.inlet.annotation.Internal;
import io.inlet.core.event.ChangeEvent;
import io.inlet.core.event.RowKeys;
import io.inlet.core.table.TableDescriptor;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.List;
import java.util.function.Consumer;

/**
 * Turns the changes of a table into the changes its filtered view sees. Each change is judged with
 * both of its rows: an update is one {@code -U}/{@code +U} pair, and its two rows decide together.
 *
 * <table>
 *   <caption>What an update becomes</caption>
 *   <tr><th>old row passes</th><th>new row passes</th><th>emitted</th></tr>
 *   <tr><td>yes</td><td>yes</td><td>{@code -U} old, {@code +U} new</td></tr>
 *   <tr><td>yes</td><td>no</td><td>{@code -D} old: the row leaves the view</td></tr>
 *   <tr><td>no</td><td>yes</td><td>{@code +I} new: the row enters the view</td></tr>
 *   <tr><td>no</td><td>no</td><td>nothing</td></tr>
 * </table>
 *
 * <p>An update whose rows have different primary keys is a delete of the old key and an insert of
 * the new one, each judged on its own row. A {@code +U} that comes without its {@code -U} (sources
 * that send only new rows), or with a {@code -U} that holds only the key ({@link
 * ChangeEvent#isKeyOnly()}), is taken as if the old row was in the view: it becomes {@code -D} when
 * it fails the condition. A {@code -U} without a following {@code +U} is judged as a delete. Inserts
 * and deletes are judged by their row.
 *
 * <p>Schema changes of a filtered table are followed: the condition is bound again to the new
 * version, and the job stops naming the column when it no longer fits (a column it names dropped,
 * renamed, or retyped so the comparison no longer holds).
 *
 * <p>Not thread-safe; one per operator instance. The pending {@code -U} is held only between the two
 * halves of one update, which a source emits together; {@link #flush} emits it when anything else
 * comes first (a checkpoint barrier, the end of input).
 */
@Internal
public final class ViewChanges implements Serializable {

    private static final long serialVersionUID = 1L;

    private final FollowedTables<Bound> tables;

    @Nullable
    private transient ChangeEvent pendingBefore;

    private transient FollowedTables.Version<Bound> pendingTable;

    public ViewChanges(TableSelector selector, FilterExpression expression, List<TableDescriptor> tables) {
        this.tables = new FollowedTables<>("filter", selector, tables, new Condition(expression));
    }

    /** The condition bound to one version of a filtered table, and that version's key. */
    static final class Bound {
        final FilterExpression.RowPredicate predicate;
        final RowKeys keys;

        Bound(FilterExpression.RowPredicate predicate, TableDescriptor t) {
            this.predicate = predicate;
            this.keys = RowKeys.of(t);
        }

        boolean passes(RowData row) {
            return Boolean.TRUE.equals(predicate.test(row));
        }
    }

    /** Binds the condition to each version of a table; a version it no longer fits stops the job. */
    private static final class Condition implements FollowedTables.Planner<Bound> {
        private static final long serialVersionUID = 1L;

        private final FilterExpression expression;

        Condition(FilterExpression expression) {
            this.expression = expression;
        }

        @Override
        public Bound prepare(TableDescriptor input) {
            return new Bound(expression.bind(input), input);
        }

        @Override
        public TableDescriptor output(TableDescriptor input, Bound work) {
            return input;
        }
    }

    /** Binds the condition to the declared tables, so a condition that does not fit fails at the start. */
    public void open() {
        tables.open();
    }

    /**
     * Processes one change.
     *
     * @param out receives what the view sees
     * @param dropped called once for each change that does not reach the view
     */
    public void process(ChangeEvent event, Consumer<ChangeEvent> out, Runnable dropped) {
        if (event.isSchemaChange()) {
            if (pendingBefore != null) {
                flush(out, dropped);
            }
            // The condition is bound to the new version first: it stops the job if it no longer fits.
            out.accept(tables.follow(event));
            return;
        }
        FollowedTables.Version<Bound> b = tables.of(event);
        if (pendingBefore != null) {
            if (b != null && b == pendingTable && event.kind() == RowKind.UPDATE_AFTER) {
                ChangeEvent before = pendingBefore;
                pendingBefore = null;
                update(b, before, event, out, dropped);
                return;
            }
            flush(out, dropped);
        }
        if (b == null) {
            out.accept(event); // a table the filter does not select
            return;
        }
        switch (event.kind()) {
            case UPDATE_BEFORE:
                pendingBefore = event;
                pendingTable = b;
                return;
            case UPDATE_AFTER:
                // No old row came with it: if the new row leaves the view, the old one may have been in it.
                if (b.work.passes(event.row())) {
                    out.accept(event);
                } else {
                    out.accept(as(b, event, RowKind.DELETE));
                }
                return;
            default:
                if (b.work.passes(event.row())) {
                    out.accept(event);
                } else {
                    dropped.run();
                }
        }
    }

    /** Emits a {@code -U} still waiting for its {@code +U}, judged as a delete of its row. */
    public void flush(Consumer<ChangeEvent> out, Runnable dropped) {
        if (pendingBefore == null) {
            return;
        }
        ChangeEvent before = pendingBefore;
        pendingBefore = null;
        if (before.isKeyOnly() || pendingTable.work.passes(before.row())) {
            out.accept(as(pendingTable, before, RowKind.DELETE));
        } else {
            dropped.run();
        }
    }

    private static void update(
            FollowedTables.Version<Bound> b,
            ChangeEvent before,
            ChangeEvent after,
            Consumer<ChangeEvent> out,
            Runnable dropped) {
        // An old row of which only the key is known may have been in the view: keep its -U (a delete by key).
        boolean oldIn = before.isKeyOnly() || b.work.passes(before.row());
        boolean newIn = b.work.passes(after.row());
        if (!b.work.keys.sameKey(before.row(), after.row())) {
            // A primary-key change: the old key goes, the new key comes, each on its own row.
            if (oldIn) {
                out.accept(as(b, before, RowKind.DELETE));
            } else {
                dropped.run();
            }
            if (newIn) {
                out.accept(as(b, after, RowKind.INSERT));
            } else {
                dropped.run();
            }
            return;
        }
        if (oldIn && newIn) {
            out.accept(before);
            out.accept(after);
        } else if (oldIn) {
            out.accept(as(b, before, RowKind.DELETE));
            dropped.run();
        } else if (newIn) {
            dropped.run();
            out.accept(as(b, after, RowKind.INSERT));
        } else {
            dropped.run();
            dropped.run();
        }
    }

    /** The same change with another row kind; events and their rows are immutable, so a copy. */
    private static ChangeEvent as(FollowedTables.Version<Bound> b, ChangeEvent event, RowKind kind) {
        RowData in = event.row();
        RowData.FieldGetter[] getters = b.inputGetters;
        GenericRowData row = new GenericRowData(kind, getters.length);
        for (int i = 0; i < getters.length; i++) {
            row.setField(i, getters[i].getFieldOrNull(in));
        }
        return b.emit(event, row);
    }
}
