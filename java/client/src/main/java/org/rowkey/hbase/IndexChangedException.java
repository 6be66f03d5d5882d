package org.rowkey.hbase;

import java.io.IOException;

/**
 * A read through an index ended, and the index it planned had been dropped and added again under
 * its name by another client meanwhile (docs/indexes.md, "Catalog changes"): the read may have met
 * rows of the new index, half built or on other fields, so it fails instead of answering from them.
 * Reading again plans from the catalog as it is now. An aggregate does so once by itself; a scan,
 * which has handed rows over already, throws this at its end.
 */
@RunsIn(RunsIn.Where.CLIENT)
public final class IndexChangedException extends IOException {
    private static final long serialVersionUID = 1L;

    IndexChangedException(String message) {
        super(message);
    }
}
