package io.inlet.it;

import io.inlet.testing.KafkaBroker;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Avro;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Real Debezium change events on Kafka, made by code we did not write: Debezium 1.9.7's MySQL
 * connector in its embedded engine reads a MariaDB binlog, Apicurio's Kafka Connect Avro converter
 * registers the schemas and writes the Confluent wire format, and a Kafka producer puts the records
 * (tombstones included) on topics {@code <server>.<database>.<table>}.
 */
final class DebeziumProducer implements AutoCloseable {

    private final DebeziumEngine<ChangeEvent<byte[], byte[]>> engine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicLong produced = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private DebeziumProducer(
            MariaDbServer mysql,
            String database,
            String server,
            KafkaBroker kafka,
            SchemaRegistry registry,
            java.util.Map<String, String> overrides) {
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer());

        Properties p = new Properties();
        p.setProperty("name", "inlet-it-" + server);
        p.setProperty("connector.class", "io.debezium.connector.mysql.MySqlConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "0");
        p.setProperty("database.hostname", mysql.host());
        p.setProperty("database.port", String.valueOf(mysql.port()));
        p.setProperty("database.user", mysql.rootUser());
        p.setProperty("database.password", mysql.rootPassword());
        p.setProperty("database.server.id", String.valueOf(6400 + (Math.abs(server.hashCode()) % 1000)));
        p.setProperty("database.server.name", server);
        p.setProperty("database.include.list", database);
        p.setProperty("database.history", "io.debezium.relational.history.MemoryDatabaseHistory");
        p.setProperty("database.serverTimezone", "UTC");
        p.setProperty("snapshot.mode", "initial");
        p.setProperty("snapshot.locking.mode", "none");
        p.setProperty("include.schema.changes", "false");
        p.setProperty("tombstones.on.delete", "true");
        // Faithful unsigned BIGINT; Debezium's default 'long' would wrap 2^64-1 to -1.
        p.setProperty("bigint.unsigned.handling.mode", "precise");
        p.setProperty("converter.apicurio.registry.url", registry.v2Url());
        p.setProperty("converter.apicurio.registry.auto-register", "true");
        p.setProperty("converter.apicurio.registry.as-confluent", "true");
        p.setProperty("converter.apicurio.registry.use-id", "contentId");
        p.setProperty("converter.apicurio.registry.headers.enabled", "false");
        overrides.forEach(p::setProperty);
        engine = DebeziumEngine.create(Avro.class)
                .using(p)
                .notifying((records, committer) -> {
                    for (ChangeEvent<byte[], byte[]> r : records) {
                        try {
                            producer.send(new ProducerRecord<>(r.destination(), r.key(), r.value()))
                                    .get();
                        } catch (java.util.concurrent.ExecutionException e) {
                            failure.set(e.getCause());
                            throw new InterruptedException("Kafka refused a Debezium record: " + e.getCause());
                        }
                        produced.incrementAndGet();
                        committer.markProcessed(r);
                    }
                    committer.markBatchFinished();
                })
                .using((success, message, error) -> {
                    if (!success) {
                        failure.set(error != null ? error : new IllegalStateException(message));
                    }
                })
                .build();
        executor.execute(engine);
    }

    /** Starts capturing the database into topics {@code <server>.<database>.<table>}, which must exist. */
    static DebeziumProducer start(
            MariaDbServer mysql, String database, String server, KafkaBroker kafka, SchemaRegistry registry) {
        return new DebeziumProducer(mysql, database, server, kafka, registry, java.util.Map.of());
    }

    /** As {@link #start}, with connector properties of the test's own (e.g. Debezium's defaults instead of ours). */
    static DebeziumProducer start(
            MariaDbServer mysql,
            String database,
            String server,
            KafkaBroker kafka,
            SchemaRegistry registry,
            java.util.Map<String, String> overrides) {
        return new DebeziumProducer(mysql, database, server, kafka, registry, overrides);
    }

    /** Waits until at least n records (tombstones included) are on Kafka. */
    void awaitProduced(long n, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (produced.get() < n) {
            if (failure.get() != null) {
                throw new IllegalStateException("The Debezium engine failed", failure.get());
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(
                        "Debezium produced " + produced.get() + " of " + n + " records within " + timeout);
            }
            Thread.sleep(50); // polling the engine's progress; the timeout above decides
        }
    }

    long produced() {
        return produced.get();
    }

    @Override
    public void close() throws Exception {
        engine.close();
        executor.shutdown();
        executor.awaitTermination(30, TimeUnit.SECONDS);
        producer.close();
    }
}
