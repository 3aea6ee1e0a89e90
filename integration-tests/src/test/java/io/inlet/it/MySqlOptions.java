package io.inlet.it;

import io.inlet.testing.MariaDbServer;

import java.util.HashMap;
import java.util.Map;

/** The options of a {@code mysql-cdc} source on the test server, as a map a test may extend. */
final class MySqlOptions {

    private MySqlOptions() {}

    static Map<String, String> of(MariaDbServer mysql, String db, String tables) {
        return new HashMap<>(Map.of("hostname", mysql.host(), "port", String.valueOf(mysql.port()), "username", mysql.rootUser(),
                "password", mysql.rootPassword(), "database-name", db, "table-name", tables));
    }
}
