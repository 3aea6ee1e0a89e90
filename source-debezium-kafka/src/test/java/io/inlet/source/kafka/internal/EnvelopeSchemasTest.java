package io.inlet.source.kafka.internal;

import io.inlet.core.table.TableDescriptor;
import io.inlet.core.table.TableId;

import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class EnvelopeSchemasTest {

    private static final String ID = "{\"name\":\"id\",\"type\":\"long\"}";
    private static final String CODE = "{\"name\":\"code\",\"type\":\"string\",\"default\":\"x\"}";

    private static Schema grade(int def) {
        return DebeziumAvro.envelope(
                ID + "," + CODE + ",{\"name\":\"grade\",\"type\":\"int\",\"default\":" + def + "}");
    }

    /**
     * Records from before {@code ADD COLUMN grade INT NOT NULL DEFAULT 3} lack it: they take 3, the default
     * of the schema that added it, also when a later {@code SET DEFAULT 4} changed the newest schema's. A
     * column every schema has needs none.
     */
    @Test
    void aColumnAddedSinceTheOldestSchemaTakesTheDefaultItWasAddedWith() {
        Schema v1 = DebeziumAvro.envelope(ID + "," + CODE);
        TableDescriptor table = EnvelopeSchemas.describe(TableId.of("db", "t"), "t", grade(4), null);
        assertThat(EnvelopeSchemas.addedDefaults(List.of(v1, grade(3), grade(4)), "t", table))
                .containsExactly(java.util.Map.entry("grade", "3"));
        assertThat(EnvelopeSchemas.addedDefaults(List.of(grade(3), grade(4)), "t", table))
                .isEmpty();
        // The schema that added it lost 'code': maybe a rename (code to grade), whose rows hold code's values.
        Schema renamed = DebeziumAvro.envelope(ID + ",{\"name\":\"grade\",\"type\":\"int\",\"default\":3}");
        TableDescriptor now = EnvelopeSchemas.describe(TableId.of("db", "t"), "t", renamed, null);
        assertThat(EnvelopeSchemas.addedDefaults(List.of(v1, renamed), "t", now))
                .isEmpty();
    }
}
