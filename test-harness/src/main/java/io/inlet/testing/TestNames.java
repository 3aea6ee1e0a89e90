package io.inlet.testing;

import java.util.Locale;
import java.util.UUID;

/** Fresh names for databases, topics, subjects and tables, so that tests never share one. */
public final class TestNames {

    private TestNames() {}

    /** {@code prefix_} and 10 random lower-case hex digits: valid in MySQL, Kafka and Iceberg. */
    public static String unique(String prefix) {
        return prefix.toLowerCase(Locale.ROOT) + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }
}
