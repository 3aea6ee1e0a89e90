package io.inlet.it;

import io.inlet.source.kafka.DebeziumKafkaSource;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;

import java.time.Duration;
import java.util.regex.Pattern;

/** A {@code debezium-kafka} source on the test broker and registry. */
final class KafkaSources {

    /** How long the shop scenario waits for Debezium and the lakes. */
    static final Duration SHOP_TIMEOUT = Duration.ofSeconds(180);

    private KafkaSources() {}

    /** Creates the shop tables, loads them, and starts Debezium on them; returns the producer. */
    static DebeziumProducer shop(
            MariaDbServer mysql, String db, String server, KafkaBroker kafka, SchemaRegistry registry)
            throws Exception {
        ShopDatabase.create(mysql, db);
        ShopDatabase.load(mysql, db);
        kafka.createTopics(
                2, server + "." + db + ".orders", server + "." + db + ".order_items", server + "." + db + ".all_types");
        DebeziumProducer dbz = DebeziumProducer.start(mysql, db, server, kafka, registry);
        dbz.awaitProduced(11, SHOP_TIMEOUT); // the snapshot: 4 orders, 4 items, 3 all_types rows
        return dbz;
    }

    /** A source of every topic of the Debezium server {@code server}. */
    static DebeziumKafkaSource shopSource(String server, KafkaBroker kafka, SchemaRegistry registry) {
        return DebeziumKafkaSource.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPattern(Pattern.quote(server) + "\\..*")
                .registryUrl(registry.ccompatUrl())
                .startupMode("earliest-offset")
                .build();
    }

    /** A source builder of the topics, read from their earliest offsets on, unbounded. */
    static DebeziumKafkaSource.Builder debezium(KafkaBroker kafka, SchemaRegistry registry, String... topics) {
        return DebeziumKafkaSource.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topics(topics)
                .registryUrl(registry.ccompatUrl())
                .startupMode("earliest-offset");
    }
}
