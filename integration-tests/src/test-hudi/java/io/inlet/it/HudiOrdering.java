package io.inlet.it;

/** The columns the Hudi sink adds, left out when a Hudi table is compared with its source. */
final class HudiOrdering {

    private HudiOrdering() {}

    /**
     * The ordering column in this version (and the one before it, for the upgrade test), and Hudi's
     * soft-delete flag.
     */
    static final String[] COLUMNS = {"_source_position", "_source_ts", "_hoodie_is_deleted"};
}
