package io.inlet.core.util;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MiniJsonTest {

    @Test
    void parsesRegistryAnswers() {
        Object o = MiniJson.parse("{\"subject\":\"t-value\",\"version\":3,\"id\":42,"
                + "\"schema\":\"{\\\"type\\\":\\\"record\\\",\\\"name\\\":\\\"\\u00fc\\\"}\","
                + "\"references\":[],\"x\":null,\"b\":true,\"d\":-1.5e2}");
        Map<?, ?> m = (Map<?, ?>) o;
        assertThat(m.get("id")).isEqualTo(42L);
        assertThat(m.get("schema")).isEqualTo("{\"type\":\"record\",\"name\":\"ü\"}");
        assertThat(m.get("references")).isEqualTo(List.of());
        assertThat(m.containsKey("x")).isTrue();
        assertThat(m.get("b")).isEqualTo(true);
        assertThat(m.get("d")).isEqualTo(-150.0);
        assertThat(MiniJson.parse(" [\"a\", \"b\"] ")).isEqualTo(List.of("a", "b"));
    }

    @Test
    void rejectsBrokenJsonWithThePosition() {
        assertThatThrownBy(() -> MiniJson.parse("{\"a\":}")).hasMessageContaining("expected a value at position 5");
        assertThatThrownBy(() -> MiniJson.parse("[1, 2")).hasMessageContaining("expected ']'");
        assertThatThrownBy(() -> MiniJson.parse("{} x")).hasMessageContaining("expected the end of the document");
    }

    @Test
    void quotesWhatItParsesBack() {
        String text = "{\"type\": \"record\"}\\ tab\t line\n ctl\u0001 ü 😀";
        assertThat(MiniJson.quote(text))
                .startsWith("\"")
                .endsWith("\"")
                .doesNotContain("\n")
                .doesNotContain("\t");
        assertThat(MiniJson.parse(MiniJson.quote(text))).isEqualTo(text);
    }
}
