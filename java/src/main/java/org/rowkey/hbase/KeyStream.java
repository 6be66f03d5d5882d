package org.rowkey.hbase;

import java.io.IOException;

/**
 * A sorted sequence of distinct data keys (unsigned byte order) that can skip ahead: the input and
 * output of the joins of {@link KeyStreams} (docs/joins.md). A stream starts unpositioned: its first
 * {@link #key()} reads its first key, its first {@link #seek} goes straight to the target. It never
 * moves backwards.
 */
interface KeyStream {
    /** The current key, or null once the stream is exhausted. Do not modify it. */
    byte[] key() throws IOException;

    /** Moves to the first key greater than the current one. */
    void advance() throws IOException;

    /**
     * Moves to the first key {@code >= target}; a no-op when the current key is already there (a
     * stream never moves backwards).
     */
    void seek(byte[] target) throws IOException;
}
