package org.rowkey.hbase;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A row's key values in field order, in the flat form the native core encodes a key from
 * ({@code Schema::encode_flat}): a kind byte per value, then 1 an int of 8 bytes big-endian, 2 a
 * bool byte, 3 a string or 4 bytes, each a 4-byte big-endian length and the (UTF-8) bytes. It
 * replaces a protobuf {@code Row} of named values: no message and no field names to build and
 * parse for each key, which the bulk load's mappers did a million times a load.
 */
@RunsIn(RunsIn.Where.SHARED)
final class FlatValues implements Values.Sink<FlatValues> {
    private static final byte INT = 1;
    private static final byte BOOL = 2;
    private static final byte STRING = 3;
    private static final byte BYTES = 4;

    private byte[] buffer = new byte[64];
    private int length;

    @Override
    public FlatValues integer(long v) {
        room(9);
        buffer[length++] = INT;
        for (int shift = 56; shift >= 0; shift -= 8) {
            buffer[length++] = (byte) (v >>> shift);
        }
        return this;
    }

    @Override
    public FlatValues bool(boolean b) {
        room(2);
        buffer[length++] = BOOL;
        buffer[length++] = (byte) (b ? 1 : 0);
        return this;
    }

    @Override
    public FlatValues string(String s) {
        return withLength(STRING, s.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public FlatValues bytes(byte[] b) {
        return withLength(BYTES, b);
    }

    private FlatValues withLength(byte kind, byte[] b) {
        room(5 + b.length);
        buffer[length++] = kind;
        for (int shift = 24; shift >= 0; shift -= 8) {
            buffer[length++] = (byte) (b.length >>> shift);
        }
        System.arraycopy(b, 0, buffer, length, b.length);
        length += b.length;
        return this;
    }

    private void room(int bytes) {
        if (length + bytes > buffer.length) {
            buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + bytes));
        }
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buffer, length);
    }
}
