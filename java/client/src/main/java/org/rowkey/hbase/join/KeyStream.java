package org.rowkey.hbase.join;

import java.io.IOException;
import java.util.Collections;
import java.util.List;

import org.rowkey.hbase.RunsIn;

/**
 * A sorted sequence of distinct data keys (unsigned byte order) that can skip ahead: the input and
 * output of the joins of {@link KeyStreams} (docs/joins.md). A stream starts unpositioned: its first
 * {@link #key()} reads its first key, its first {@link #seek} goes straight to the target. It never
 * moves backwards.
 */
@RunsIn(RunsIn.Where.CLIENT)
public interface KeyStream {
    /** The current key, or null once the stream is exhausted. Do not modify it. */
    byte[] key() throws IOException;

    /** Moves to the first key greater than the current one. */
    void advance() throws IOException;

    /**
     * Moves to the first key {@code >= target}; a no-op when the current key is already there (a
     * stream never moves backwards).
     */
    void seek(byte[] target) throws IOException;

    /**
     * Whether the next {@link #key()} is known without reading (the stream holds it, or knows it
     * has none). A stream that cannot tell says false.
     */
    default boolean holds() {
        return false;
    }

    /**
     * The current key and those right after it that the stream holds without reading (at most
     * {@code max}, in order, consecutive: no key of the stream lies between two of them); empty
     * when it knows none. Call after {@link #key()}.
     */
    default List<byte[]> known(int max) throws IOException {
        return Collections.emptyList();
    }

    /**
     * A seek for a caller that wants only {@code candidates} (sorted, each {@code >= target}) up to
     * the last of them: moves to a key {@code >= target}, skipping no candidate that the stream
     * holds, but free to skip its other keys up to the last candidate. So the stream can resolve
     * every candidate at once (one scan with a server-side seek per candidate) instead of seeking
     * to each in turn. A plain {@link #seek} meets this contract.
     */
    default void seekAmong(byte[] target, List<byte[]> candidates) throws IOException {
        seek(target);
    }
}
