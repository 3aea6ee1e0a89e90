package io.inlet.source.kafka.internal;

import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AvroSemanticsTest {

    private static Schema.Field field(String json) {
        return new Schema.Parser()
                .parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[" + json + "]}")
                .getFields()
                .get(0);
    }

    @Test
    void aWriterSchemasDefaultIsCarriedWhereItIsAPlainConstant() {
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"s\",\"type\":\"string\",\"default\":\"new\"}")))
                .isEqualTo("new");
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"q\",\"type\":\"int\",\"default\":7}")))
                .isEqualTo("7");
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"b\",\"type\":\"boolean\",\"default\":true}")))
                .isEqualTo("true");
        // DECIMAL(6,3) 1.500: unscaled 1500 = 0x05DC, one char per byte.
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"d\",\"type\":{\"type\":\"bytes\","
                        + "\"logicalType\":\"decimal\",\"precision\":6,\"scale\":3},\"default\":\"\\u0005\\u00dc\"}")))
                .isEqualTo("1.500");
    }

    @Test
    void noDefaultWhereTheSchemaCannotTellTheValue() {
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"n\",\"type\":[\"null\",\"string\"],\"default\":null}")))
                .isNull();
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"s\",\"type\":\"string\"}")))
                .isNull();
        // Debezium's parser keeps the escape of 'it''s'.
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"s\",\"type\":\"string\",\"default\":\"it''s\"}")))
                .isNull();
        // DEFAULT CURRENT_DATE comes as the epoch: dates and times are not carried.
        assertThat(AvroSemantics.defaultText(field("{\"name\":\"d\",\"type\":{\"type\":\"int\","
                        + "\"connect.name\":\"io.debezium.time.Date\"},\"default\":0}")))
                .isNull();
    }
}
