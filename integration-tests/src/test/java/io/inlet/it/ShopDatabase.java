package io.inlet.it;

import io.inlet.testing.MariaDbServer;

/** The sample tables of the MySQL ITCases: three shapes, one with every MySQL type Inlet maps. */
final class ShopDatabase {

    private ShopDatabase() {}

    static final String[] TABLES = {"orders", "order_items", "all_types"};

    static void create(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "CREATE TABLE orders ("
                        + " id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
                        + " customer VARCHAR(100) NOT NULL COMMENT 'who ordered',"
                        + " amount DECIMAL(10,2) NOT NULL,"
                        + " status ENUM('new','paid','shipped','cancelled') NOT NULL DEFAULT 'new',"
                        + " note TEXT,"
                        + " created DATETIME(3) NOT NULL"
                        + ") COMMENT 'orders of the shop'",
                "CREATE TABLE order_items ("
                        + " order_id BIGINT NOT NULL,"
                        + " line_no INT NOT NULL,"
                        + " sku VARCHAR(32) NOT NULL,"
                        + " qty SMALLINT UNSIGNED NOT NULL,"
                        + " price DECIMAL(12,4),"
                        + " PRIMARY KEY (order_id, line_no))",
                "CREATE TABLE all_types ("
                        + " id INT NOT NULL PRIMARY KEY,"
                        + " c_bool BOOLEAN, c_tinyint1 TINYINT(1), c_tinyint TINYINT, c_tinyint_u TINYINT UNSIGNED,"
                        + " c_smallint SMALLINT, c_smallint_u SMALLINT UNSIGNED, c_mediumint MEDIUMINT,"
                        + " c_mediumint_u MEDIUMINT UNSIGNED,"
                        + " c_int INT, c_int_u INT UNSIGNED, c_bigint BIGINT, c_bigint_u BIGINT UNSIGNED,"
                        + " c_decimal DECIMAL(10,2), c_decimal_38 DECIMAL(38,10), c_decimal_65 DECIMAL(65,30),"
                        + " c_float FLOAT, c_double DOUBLE,"
                        + " c_char CHAR(10), c_varchar VARCHAR(255), c_text TEXT, c_mediumtext MEDIUMTEXT,"
                        + " c_binary BINARY(4), c_varbinary VARBINARY(16), c_blob BLOB,"
                        + " c_date DATE, c_time TIME, c_time3 TIME(3), c_time6 TIME(6),"
                        + " c_datetime DATETIME, c_datetime3 DATETIME(3), c_datetime6 DATETIME(6),"
                        + " c_timestamp TIMESTAMP NULL, c_timestamp6 TIMESTAMP(6) NULL,"
                        + " c_year YEAR, c_enum ENUM('red','green','blue'), c_set SET('a','b','c'), c_json JSON,"
                        + " c_bit1 BIT(1), c_bit12 BIT(12), c_bit64 BIT(64)"
                        + ") CHARACTER SET utf8mb4");
    }

    /** An all_types row with typical and extreme values, emoji included. */
    static String allTypesRow(int id) {
        return "(" + id + ", TRUE, 1, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,"
                + " 9223372036854775807, 18446744073709551615, 12345678.90, 1234567890123456789012345678.0123456789,"
                + " '12345678901234567890123456789012345.123456789012345678901234567890', 3.14, 2.718281828459045,"
                + " 'char', 'héllo wörld 😀 ✓', 'text with\nnewline', 'medium 🎉', 0x01020304, 0xCAFEBABE, 0x00FF10,"
                + " '2024-02-29', '23:59:59', '12:34:56.789', '08:00:00.123000', '2024-02-29"
                + " 12:00:00', '2024-02-29 12:00:00.123',"
                + " '2024-02-29 12:00:00.123456', '2038-01-19 03:14:07', '2024-02-29"
                + " 12:00:00.654321', 2024, 'green', 'a,c',"
                + " '{\"k\": [1, 2, {\"x\": \"ü\"}]}', b'1', b'101010101010',"
                + " b'1000000000000000000000000000000000000000000000000000000000000001')";
    }

    /** An all_types row of zeros, negatives and lower bounds. */
    static String allTypesLowRow(int id) {
        return "(" + id + ", FALSE, 0, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0,"
                + " -9223372036854775808, 0, -0.01, -0.0000000001, '-1.000000000000000000000000000001', -1.5, -1e-300,"
                + " '', '', '', '', 0x00000000, X'', '',"
                + " '1000-01-01', '00:00:00', '00:00:00.000', '00:00:00.000000', '1000-01-01"
                + " 00:00:00', '1970-01-01 00:00:00.000',"
                + " '1969-12-31 23:59:59.999999', '1970-01-01 00:00:01', '1970-01-01 00:00:01.000001', 1901, 'red', '',"
                + " '[]', b'0', b'0', b'0')";
    }

    /** The snapshot: rows in every table, one all_types row all NULL but its key. */
    static void load(MariaDbServer mysql, String db) {
        mysql.execute(
                db,
                "INSERT INTO orders (customer, amount, status, note, created) VALUES"
                        + " ('anna', 10.50, 'new', NULL, '2024-01-01 10:00:00.001'),"
                        + " ('bob', 0.00, 'paid', 'gift 🎁', '2024-01-02 11:30:00.250'),"
                        + " ('carl', -3.20, 'shipped', '', '2024-01-03 00:00:00.000'),"
                        + " ('dora', 99999999.99, 'new', 'max', '2024-01-04 23:59:59.999')",
                "INSERT INTO order_items VALUES (1, 1, 'SKU-1', 2, 5.2500), (1, 2, 'SKU-2', 1, NULL),"
                        + " (2, 1, 'SKU-3', 65535, 0.0001), (3, 1, 'SKU-1', 0, -1.0000)",
                "INSERT INTO all_types VALUES " + allTypesRow(1),
                "INSERT INTO all_types (id) VALUES (2)",
                "INSERT INTO all_types VALUES " + allTypesLowRow(3));
    }
}
