package io.inlet.benchmarks;

import io.inlet.examples.DebeziumOrders;
import io.inlet.testing.KafkaBroker;
import io.inlet.testing.MariaDbServer;
import io.inlet.testing.SchemaRegistry;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** The real services of the benchmarks, started on first use, and the data they hold. */
final class Services implements AutoCloseable {

    static final String DB = "bench";

    private MariaDbServer mysql;
    private KafkaBroker kafka;
    private SchemaRegistry registry;
    private final Map<Long, String> topics = new LinkedHashMap<>();

    MariaDbServer mysql() {
        if (mysql == null) {
            mysql = MariaDbServer.start();
            mysql.execute("", "CREATE DATABASE IF NOT EXISTS " + DB);
        }
        return mysql;
    }

    KafkaBroker kafka() {
        if (kafka == null) {
            kafka = KafkaBroker.start();
        }
        return kafka;
    }

    SchemaRegistry registry() {
        if (registry == null) {
            registry = SchemaRegistry.start();
        }
        return registry;
    }

    /** Settings a trial needs to reach MySQL. */
    Map<String, String> mysqlArgs() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("mysql-host", mysql().host());
        m.put("mysql-port", String.valueOf(mysql().port()));
        m.put("mysql-user", mysql().rootUser());
        m.put("mysql-password", mysql().rootPassword());
        m.put("mysql-db", DB);
        return m;
    }

    /**
     * A table {@code orders_<rows>} of the shape (BIGINT key, INTs, DECIMAL(10,2), two
     * VARCHARs, DATETIME(3)) with {@code rows} rows, loaded once with MariaDB's sequence engine.
     */
    String ordersTable(long rows) throws Exception {
        String table = "orders_" + rows;
        try (Connection c = mysql().connection(DB);
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '"
                    + DB + "' AND table_name = '" + table + "'")) {
                rs.next();
                if (rs.getLong(1) > 0) {
                    return table;
                }
            }
            s.execute("CREATE TABLE " + table
                    + " (id BIGINT NOT NULL PRIMARY KEY, customer_id INT NOT NULL, quantity INT NOT NULL,"
                    + " amount DECIMAL(10,2) NOT NULL, status VARCHAR(20) NOT NULL, note VARCHAR(100),"
                    + " updated_at DATETIME(3) NOT NULL,"
                    + " version INT NOT NULL DEFAULT 0)");
            long t0 = System.nanoTime();
            s.execute("INSERT INTO " + table + " SELECT seq, seq % 100000, 1 + seq % 7, (seq % 100000) + 0.99,"
                    + " ELT(1 + seq % 4, 'new', 'paid', 'shipped', 'cancelled'), CONCAT('order note ', seq),"
                    + " TIMESTAMP('2025-01-01 00:00:00.000') + INTERVAL seq SECOND, 0 FROM seq_1_to_" + rows);
            Bench.log("Loaded " + rows + " rows into MySQL " + DB + "." + table + " in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms");
        }
        return table;
    }

    /** A fresh copy of a loaded table, for trials that change it. */
    String copyOf(String table, String name) throws Exception {
        try (Connection c = mysql().connection(DB);
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + name);
            s.execute("CREATE TABLE " + name + " LIKE " + table);
            s.execute("INSERT INTO " + name + " SELECT * FROM " + table);
        }
        return name;
    }

    void dropDatabase(String db) throws Exception {
        try (Connection c = mysql().connection(DB);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + db);
        }
    }

    void drop(String table) throws Exception {
        try (Connection c = mysql().connection(DB);
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
        }
    }

    /**
     * A topic {@code bench<rows>.shop.orders} with 2 partitions holding {@code rows} Debezium change
     * events of {@link DebeziumOrders} (inserts, updates, deletes, tombstones; schemas registered),
     * produced once.
     */
    String topic(long rows) throws Exception {
        String existing = topics.get(rows);
        if (existing != null) {
            return existing;
        }
        String topic = "bench" + rows + ".shop.orders";
        kafka().createTopics(2, topic);
        int keyId = registry()
                .register(topic + "-key", DebeziumOrders.keySchema(topic).toString());
        int valueId = registry()
                .register(topic + "-value", DebeziumOrders.valueSchema(topic).toString());
        DebeziumOrders orders = new DebeziumOrders(topic, keyId, valueId);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka().bootstrapServers());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(512 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        long t0 = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long n = 0; n < rows; n++) {
                byte[][] kv = orders.encode(n);
                producer.send(new ProducerRecord<>(topic, kv[0], kv[1]));
            }
            producer.flush();
        }
        Bench.log("Produced " + rows + " Debezium messages to " + topic + " in " + (System.nanoTime() - t0) / 1_000_000
                + " ms");
        topics.put(rows, topic);
        return topic;
    }

    /** Settings a trial needs to reach Kafka and the registry. */
    Map<String, String> kafkaArgs(long rows) throws Exception {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("topic", topic(rows));
        m.put("kafka", kafka().bootstrapServers());
        m.put("registry", registry().ccompatUrl());
        m.put("final-rows", String.valueOf(DebeziumOrders.finalState(rows).size()));
        return m;
    }

    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {registry, kafka, mysql}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    Bench.log("Stopping a service failed: " + e);
                }
            }
        }
    }
}
