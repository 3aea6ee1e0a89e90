package io.inlet.testing;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("harness") // the harness is the same on every Flink line: its own tests run on 1.17 only (pom.xml)
@ExtendWith(SchemaRegistryExtension.class)
class SchemaRegistryITCase {

    private static final String SCHEMA =
            "{\"type\":\"record\",\"name\":\"Envelope\",\"namespace\":\"dbserver1.inventory.orders\","
                    + "\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"note\","
                    + "\"type\":[\"null\",\"string\"],\"default\":null}]}";

    @Test
    void aRegisteredSchemaIsFetchedById(SchemaRegistry registry) throws Exception {
        String subject = registry.newSubject("orders");
        int id = registry.register(subject, SCHEMA);
        assertThat(id).isPositive();

        HttpResponse<String> byId = registry.get("/schemas/ids/" + id);
        assertThat(byId.statusCode()).isEqualTo(200);
        assertThat(byId.body().replace("\\\"", "\"").replaceAll("\\s", ""))
                .contains("\"name\":\"Envelope\"", "\"namespace\":\"dbserver1.inventory.orders\"", "\"name\":\"note\"");

        // Registering the same schema again gives the same id; the subject lists one version.
        assertThat(registry.register(subject, SCHEMA)).isEqualTo(id);
        assertThat(registry.get("/subjects/" + subject + "/versions").body().replaceAll("\\s", ""))
                .isEqualTo("[1]");
        assertThat(registry.get("/subjects").body()).contains(subject);
    }

    @Test
    void anUnknownIdIsNotFound(SchemaRegistry registry) throws Exception {
        assertThat(registry.get("/schemas/ids/987654321").statusCode()).isEqualTo(404);
    }
}
