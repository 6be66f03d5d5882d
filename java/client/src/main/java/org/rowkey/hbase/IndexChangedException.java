package org.rowkey.hbase;

import java.io.IOException;

/**
 * A read through an index ended, and the index it planned had been dropped by another client
 * meanwhile, and perhaps added again under its name (docs/indexes.md, "Catalog changes"): the read
 * may have met rows of a new index's table, empty, half built or on other fields, so it fails
 * instead of answering from them. Reading again plans from the catalog as it is now. An aggregate,
 * or a scan that returned no row yet, does so once by itself; a scan that has handed rows over
 * throws this at its end.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class IndexChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    IndexChangedException(String message) {
        super(message);
    }
}
