package io.inlet.core.source;

import io.inlet.core.InletValidationException;
import io.inlet.core.event.ColumnChange.Kind;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SchemaChangePolicyTest {

    @Test
    void theBehaviorsFollowTheirOwnKinds() {
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE).followed())
                .containsExactlyInAnyOrder(Kind.values());
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.TRY_EVOLVE).bestEffort())
                .isTrue();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE).bestEffort())
                .isFalse();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.LENIENT).followed())
                .containsExactlyInAnyOrder(Kind.ADDED, Kind.RETYPED);
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.FAIL).followed()).isEmpty();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.FAIL).sendsChanges())
                .isFalse();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.LENIENT))
                .hasToString("lenient (not following drop.column, rename.column)");
    }

    @Test
    void droppedColumnsStayWhereDropsOrRenamesAreNotFollowed() {
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.LENIENT).keepsDroppedColumns())
                .isTrue();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, null, "rename.column")
                        .keepsDroppedColumns())
                .isTrue();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE).keepsDroppedColumns())
                .isFalse();
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.FAIL).keepsDroppedColumns())
                .isFalse(); // sends no change: the tables must match
    }

    @Test
    void includeAndExcludeTakeFlinkCdcsTags() {
        SchemaChangePolicy p = SchemaChangePolicy.of(
                SchemaChangeBehavior.EVOLVE, "add.column, alter.column.type,DROP.COLUMN", "drop.column");
        assertThat(p.followed()).containsExactlyInAnyOrder(Kind.ADDED, Kind.RETYPED);
        assertThat(p).hasToString("evolve (not following drop.column, rename.column)");
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.TRY_EVOLVE, "[column]", "[rename.column, add.column]")
                        .followed())
                .containsExactlyInAnyOrder(Kind.DROPPED, Kind.RETYPED);
        assertThat(SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, " ", "[]"))
                .isEqualTo(SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE));
    }

    @Test
    void whatCannotBeChosenIsRefusedNamingTheOptionAndTheFix() {
        assertThatThrownBy(() -> SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, null, "drop.colum"))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'exclude.schema.changes' = 'drop.colum': 'drop.colum' is unknown")
                .hasMessageContaining("add.column, alter.column.type, drop.column, rename.column");
        assertThatThrownBy(() -> SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, "column, create.table", null))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'create.table' is a change of a whole table, which Inlet does not follow");
        assertThatThrownBy(() -> SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, null, "alter.column.type"))
                .isInstanceOf(InletValidationException.class)
                .hasMessageContaining("'alter.column.type' cannot be left out")
                .hasMessageContaining("try-evolve");
        assertThatThrownBy(() -> SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, "add.column", null))
                .as("include without alter.column.type leaves it out")
                .hasMessageContaining("'alter.column.type' cannot be left out");
        for (SchemaChangeBehavior b : List.of(
                SchemaChangeBehavior.FAIL, SchemaChangeBehavior.IGNORE_ADDED_COLUMNS, SchemaChangeBehavior.LENIENT)) {
            assertThatThrownBy(() -> SchemaChangePolicy.of(b, null, "drop.column"))
                    .isInstanceOf(InletValidationException.class)
                    .hasMessageContaining("'exclude.schema.changes' chooses the schema changes a job follows, but"
                            + " 'schema-change.behavior' = '" + b + "' follows none")
                    .hasMessageContaining("Set 'schema-change.behavior' = 'evolve' or 'try-evolve'");
        }
    }
}
