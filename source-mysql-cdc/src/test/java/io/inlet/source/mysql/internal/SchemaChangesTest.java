package io.inlet.source.mysql.internal;

import io.inlet.core.InletStopException;
import io.inlet.core.event.ColumnChange;
import io.inlet.core.event.SchemaChange;
import io.inlet.core.source.SchemaChangeBehavior;
import io.inlet.core.source.SchemaChangePolicy;
import io.inlet.core.source.TimePrecisionMode;
import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import io.debezium.document.Document;
import io.debezium.document.DocumentReader;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/** The schema change a DDL record makes of a captured table, as Debezium describes the table after it. */
class SchemaChangesTest {

    private static final TableDescriptor ITEMS = TableDescriptor.builder(TableId.of("shop", "items"))
            .column("id", DataTypes.INT().notNull())
            .column("qty", DataTypes.INT())
            .column("name", DataTypes.VARCHAR(20))
            .column("price", DataTypes.DECIMAL(10, 2))
            .column("secret", DataTypes.STRING())
            .primaryKey("id")
            .build();

    private static final String ID = "{\"name\":\"id\",\"typeName\":\"INT\",\"optional\":false}";
    private static final String QTY = "{\"name\":\"qty\",\"typeName\":\"INT\",\"optional\":true}";
    private static final String NAME = "{\"name\":\"name\",\"typeName\":\"VARCHAR\",\"length\":20,\"optional\":true}";
    private static final String PRICE =
            "{\"name\":\"price\",\"typeName\":\"DECIMAL\",\"length\":10,\"scale\":2,\"optional\":true}";
    private static final String SECRET = "{\"name\":\"secret\",\"typeName\":\"TEXT\",\"optional\":true}";
    private static final String HIDDEN = "{\"name\":\"hidden\",\"typeName\":\"TEXT\",\"optional\":true}";

    private static Document table(String... columns) throws Exception {
        return DocumentReader.defaultReader()
                .read("{\"primaryKeyColumnNames\":[\"id\"],\"columns\":[" + String.join(",", columns) + "]}");
    }

    private static final SchemaChangePolicy LENIENT = SchemaChangePolicy.of(SchemaChangeBehavior.LENIENT);

    /** The change the statement made to {@code ITEMS}, under the policy, no column excluded. */
    private static SchemaChange changeUnder(SchemaChangePolicy policy, String ddl, String... columns) throws Exception {
        return SchemaChanges.change(ITEMS, table(columns), ddl, null, true, TimePrecisionMode.MICROSECONDS, policy);
    }

    private static SchemaChange change(String ddl, String... columns) throws Exception {
        return SchemaChanges.change(
                ITEMS,
                table(columns),
                ddl,
                Pattern.compile("shop\\.items\\.hidden"),
                true,
                TimePrecisionMode.MICROSECONDS);
    }

    @Test
    void anAddedColumnIsTheNextVersionAtItsPlace() throws Exception {
        SchemaChange c = change(
                "ALTER TABLE items ADD COLUMN note VARCHAR(200) DEFAULT 'x' AFTER qty",
                ID,
                QTY,
                "{\"name\":\"note\",\"typeName\":\"VARCHAR\",\"length\":200,\"optional\":true,"
                        + "\"hasDefaultValue\":true,\"defaultValueExpression\":\"x\"}",
                NAME,
                PRICE,
                SECRET,
                HIDDEN);
        assertThat(c.newVersion()).isEqualTo(2);
        assertThat(c.after().columnNames()).containsExactly("id", "qty", "note", "name", "price", "secret");
        assertThat(c.after().primaryKey()).containsExactly("id");
        assertThat(c.changes())
                .containsExactly(
                        ColumnChange.added("note", new VarCharType(200), "qty").withDefaultValue("x"));
        assertThat(c.statement()).contains("ALTER TABLE items ADD COLUMN note VARCHAR(200) DEFAULT 'x' AFTER qty");
    }

    @Test
    void wideningsAreRetypedColumns() throws Exception {
        SchemaChange c = change(
                "ALTER TABLE items MODIFY qty BIGINT, MODIFY name VARCHAR(200), MODIFY price DECIMAL(12,2)",
                ID,
                "{\"name\":\"qty\",\"typeName\":\"BIGINT\",\"optional\":true}",
                "{\"name\":\"name\",\"typeName\":\"VARCHAR\",\"length\":200,\"optional\":true}",
                "{\"name\":\"price\",\"typeName\":\"DECIMAL\",\"length\":12,\"scale\":2,\"optional\":true}",
                SECRET);
        assertThat(c.changes())
                .containsExactly(
                        ColumnChange.retyped("qty", new IntType(), new BigIntType()),
                        ColumnChange.retyped("name", new VarCharType(20), new VarCharType(200)),
                        ColumnChange.retyped("price", new DecimalType(10, 2), new DecimalType(12, 2)));
        assertThat(c.changes()).allMatch(ColumnChange::isWidening);
    }

    @Test
    void dropsAndRenamesAsTheStatementSaysThem() throws Exception {
        assertThat(change("ALTER TABLE items DROP COLUMN secret", ID, QTY, NAME, PRICE)
                        .changes())
                .containsExactly(ColumnChange.dropped("secret"));
        String label = "{\"name\":\"label\",\"typeName\":\"VARCHAR\",\"length\":20,\"optional\":true}";
        assertThat(change("ALTER TABLE items RENAME COLUMN name TO label", ID, QTY, label, PRICE, SECRET)
                        .changes())
                .containsExactly(ColumnChange.renamed("name", "label"));
        assertThat(change("ALTER TABLE items CHANGE name label VARCHAR(20)", ID, QTY, label, PRICE, SECRET)
                        .changes())
                .containsExactly(ColumnChange.renamed("name", "label"));
    }

    @Test
    void lenientOnlyAddsKeepingDroppedAndRenamedColumns() throws Exception {
        String label = "{\"name\":\"label\",\"typeName\":\"VARCHAR\",\"length\":20,\"optional\":true}";
        // A nullable column dropped: the table keeps it as it is, nothing to change.
        assertThat(changeUnder(LENIENT, "ALTER TABLE items DROP COLUMN secret", ID, QTY, NAME, PRICE))
                .isNull();
        // A rename: the old name stays (no longer filled), the new one is a new column.
        SchemaChange renamed =
                changeUnder(LENIENT, "ALTER TABLE items RENAME COLUMN name TO label", ID, QTY, label, PRICE, SECRET);
        assertThat(renamed.after().columnNames()).containsExactly("id", "qty", "label", "price", "secret", "name");
        assertThat(renamed.changes()).containsExactly(ColumnChange.added("label", new VarCharType(20), "qty"));
        // A NOT NULL column dropped stays, made nullable.
        TableDescriptor required = ITEMS.toBuilder()
                .columns(List.of(
                        ITEMS.columns().get(0),
                        ITEMS.columns().get(1).withType(DataTypes.INT().notNull()),
                        ITEMS.columns().get(2),
                        ITEMS.columns().get(3),
                        ITEMS.columns().get(4)))
                .build();
        SchemaChange dropped = SchemaChanges.change(
                required,
                table(ID, NAME, PRICE, SECRET),
                "ALTER TABLE items DROP COLUMN qty",
                null,
                true,
                TimePrecisionMode.MICROSECONDS,
                LENIENT);
        assertThat(dropped.changes()).containsExactly(ColumnChange.retyped("qty", new IntType(false), new IntType()));
    }

    @Test
    void excludedKindsKeepTheLakesValuesAndTryEvolveMarksTheChange() throws Exception {
        String label = "{\"name\":\"label\",\"typeName\":\"VARCHAR\",\"length\":20,\"optional\":true}";
        String note = "{\"name\":\"note\",\"typeName\":\"TEXT\",\"optional\":true}";
        SchemaChangePolicy noAdds = SchemaChangePolicy.of(SchemaChangeBehavior.EVOLVE, null, "add.column");
        // An added column the lake does not follow is left out: nothing changes.
        assertThat(changeUnder(noAdds, "ALTER TABLE items ADD note TEXT", ID, QTY, NAME, PRICE, SECRET, note))
                .isNull();
        // A rename is still followed without add.column: it adds no column.
        SchemaChange renamed =
                changeUnder(noAdds, "ALTER TABLE items RENAME COLUMN name TO label", ID, QTY, label, PRICE, SECRET);
        assertThat(renamed.changes()).containsExactly(ColumnChange.renamed("name", "label"));

        // Renames not followed, drops followed: the old name stays with its values, a dropped column goes.
        SchemaChangePolicy noRenames =
                SchemaChangePolicy.of(SchemaChangeBehavior.TRY_EVOLVE, "column", "[rename.column]");
        SchemaChange both = changeUnder(
                noRenames, "ALTER TABLE items RENAME COLUMN name TO label, DROP COLUMN secret", ID, QTY, label, PRICE);
        assertThat(both.after().columnNames()).containsExactly("id", "qty", "label", "price", "name");
        assertThat(both.changes())
                .containsExactlyInAnyOrder(
                        ColumnChange.dropped("secret"), ColumnChange.added("label", new VarCharType(20), "qty"));
        assertThat(both.isBestEffort()).as("try-evolve").isTrue();
        assertThat(renamed.isBestEffort()).isFalse();
    }

    @Test
    void aStatementThatChangesNothingCapturedIsNoChange() throws Exception {
        assertThat(change("CREATE INDEX i ON items (qty)", ID, QTY, NAME, PRICE, SECRET))
                .isNull();
        assertThat(change("ALTER TABLE items ADD hidden TEXT", ID, QTY, NAME, PRICE, SECRET, HIDDEN))
                .as("a column exclude-columns leaves out")
                .isNull();
    }

    @Test
    void aColumnOfATypeInletCannotMapStopsTheJobNamingIt() {
        assertThatThrownBy(() -> change(
                        "ALTER TABLE items ADD g GEOMETRY",
                        ID,
                        QTY,
                        NAME,
                        PRICE,
                        SECRET,
                        "{\"name\":\"g\",\"typeName\":\"GEOMETRY\",\"typeExpression\":\"GEOMETRY\",\"optional\":true}"))
                .isInstanceOf(InletStopException.class)
                .hasMessageContaining("column 'g' now has the type GEOMETRY")
                .hasMessageContaining("'exclude-columns' = 'shop\\.items\\.g'");
    }

    @Test
    void addedColumnsWithAConstantDefaultCarryItForTheRowsBefore() throws Exception {
        String status = "{\"name\":\"status\",\"typeName\":\"VARCHAR\",\"length\":10,\"optional\":false,"
                + "\"hasDefaultValue\":true,\"defaultValueExpression\":\"new\"}";
        String extra = "{\"name\":\"extra\",\"typeName\":\"INT\",\"optional\":true,"
                + "\"hasDefaultValue\":true,\"defaultValueExpression\":null}";
        String qty = "{\"name\":\"qty\",\"typeName\":\"INT\",\"optional\":true,"
                + "\"hasDefaultValue\":true,\"defaultValueExpression\":\"0\"}";
        Document after = table(ID, qty, NAME, PRICE, SECRET, status, extra);
        SchemaChange change = change(
                "ALTER TABLE items ADD COLUMN status VARCHAR(10) NOT NULL DEFAULT 'new', ADD COLUMN extra INT",
                ID,
                qty,
                NAME,
                PRICE,
                SECRET,
                status,
                extra);
        // qty existed before (its default changed nothing in the rows); extra's default is NULL.
        assertThat(SchemaChanges.addedDefaults(change, after)).containsExactly(java.util.Map.entry("status", "new"));
        assertThat(change.changes())
                .filteredOn(c -> c.kind() == ColumnChange.Kind.ADDED)
                .extracting(ColumnChange::column, c -> c.defaultValue().orElse(null))
                .containsExactly(tuple("status", "new"), tuple("extra", null));
    }

    @Test
    void anAddedColumnWhoseDefaultIsAnExpressionOrAnEscapedStringCarriesNone() throws Exception {
        // What Flink CDC's Debezium parser makes of DEFAULT CURRENT_TIMESTAMP: the epoch, not the ALTER's time.
        String at = "{\"name\":\"at\",\"typeName\":\"DATETIME\",\"optional\":true,"
                + "\"hasDefaultValue\":true,\"defaultValueExpression\":\"1970-01-01 00:00:00\"}";
        String cost = "{\"name\":\"cost\",\"typeName\":\"DECIMAL\",\"length\":10,\"scale\":2,"
                + "\"optional\":true,\"hasDefaultValue\":true,\"defaultValueExpression\":\"1.5\"}";
        String quip = "{\"name\":\"quip\",\"typeName\":\"VARCHAR\",\"length\":10,\"optional\":true,"
                + "\"hasDefaultValue\":true,\"defaultValueExpression\":\"it''s\"}";
        SchemaChange change = change(
                "ALTER TABLE items ADD COLUMN at DATETIME DEFAULT CURRENT_TIMESTAMP, ADD cost DECIMAL(10,2) DEFAULT"
                        + " 1.5, ADD quip VARCHAR(10) DEFAULT 'it''s'",
                ID,
                QTY,
                NAME,
                PRICE,
                SECRET,
                at,
                cost,
                quip);
        // MySQL gave the rows before the time of the ALTER and "it's": neither is what the parser says.
        assertThat(change.changes())
                .filteredOn(c -> c.kind() == ColumnChange.Kind.ADDED)
                .extracting(ColumnChange::column, c -> c.defaultValue().orElse(null))
                .containsExactly(tuple("at", null), tuple("cost", "1.5"), tuple("quip", null));
    }

    @Test
    void aRenameTheLakeDoesNotFollowAddsTheNewNameWithoutTheStatementsDefault() throws Exception {
        String count = "{\"name\":\"count\",\"typeName\":\"INT\",\"optional\":false,"
                + "\"hasDefaultValue\":true,\"defaultValueExpression\":\"0\"}";
        SchemaChange change = changeUnder(
                LENIENT, "ALTER TABLE items CHANGE qty count INT NOT NULL DEFAULT 0", ID, count, NAME, PRICE, SECRET);
        // The rows before hold qty's values under the new name in MySQL, not 0: no default for the lake to give.
        assertThat(change.changes())
                .filteredOn(c -> c.kind() == ColumnChange.Kind.ADDED)
                .extracting(ColumnChange::column, c -> c.defaultValue().orElse(null))
                .containsExactly(tuple("count", null));
    }

    @Test
    void aDefaultIsCarriedOnlyAsTheStatementSpellsItOut() {
        assertThat(SchemaChanges.literalIn("ALTER TABLE t ADD c INT NOT NULL DEFAULT 7, ADD d INT", "7"))
                .isTrue();
        assertThat(SchemaChanges.literalIn("ALTER TABLE t ADD c INT DEFAULT 70", "7"))
                .isFalse();
        assertThat(SchemaChanges.literalIn("alter table t add c varchar(9) default 'new'", "new"))
                .isTrue();
        assertThat(SchemaChanges.literalIn("ALTER TABLE t ADD c DECIMAL(6,3) DEFAULT -1.5 AFTER b", "-1.5"))
                .isTrue();
        assertThat(SchemaChanges.literalIn("ALTER TABLE t ADD c DATETIME DEFAULT NOW()", "1970-01-01 00:00:00"))
                .isFalse();
        assertThat(SchemaChanges.literalIn("ALTER TABLE t ADD c VARCHAR(9) DEFAULT _utf8mb4'x'", "x"))
                .isFalse();
        assertThat(SchemaChanges.literalIn(null, "x")).isFalse();
    }
}
