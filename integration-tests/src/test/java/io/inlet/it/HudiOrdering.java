package io.inlet.it;

/** The ordering column the Hudi sink adds, left out when a Hudi table is compared with its source. */
final class HudiOrdering {

    private HudiOrdering() {}

    /** The column's name in this version (and the one before it, for the upgrade test). */
    static final String[] COLUMNS = {"_source_position", "_source_ts"};
}
