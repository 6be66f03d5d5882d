package org.rowkey.hbase;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Protobuf wire format for the corruption tests: varints, the varint and length slots of a
 * message (nested messages included), huge lengths put in them, and random mutations. Knows the
 * wire format only, no message type. Java 8 compatible.
 */
final class ProtobufWire {
    private ProtobufWire() {}

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.write(p, 0, p.length);
        }
        return out.toByteArray();
    }

    static byte[] varint(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
        return out.toByteArray();
    }

    /** A varint field or length: where its bytes are, and its wire type (0 varint, 2 length). */
    static final class Slot {
        final int start;
        final int end;
        final int wireType;

        Slot(int start, int end, int wireType) {
            this.start = start;
            this.end = end;
            this.wireType = wireType;
        }
    }

    /** The varint values and length prefixes of a well-formed message, nested messages included. */
    static List<Slot> slots(byte[] b, int from, int to, int depth) {
        List<Slot> out = new ArrayList<>();
        int i = from;
        try {
            while (i < to) {
                long[] tag = readVarint(b, i, to);
                i = (int) tag[1];
                int wireType = (int) (tag[0] & 7);
                if (tag[0] >>> 3 == 0) {
                    return out;
                }
                long[] v;
                switch (wireType) {
                    case 0:
                        v = readVarint(b, i, to);
                        out.add(new Slot(i, (int) v[1], 0));
                        i = (int) v[1];
                        break;
                    case 2:
                        v = readVarint(b, i, to);
                        int start = (int) v[1];
                        int end = start + (int) v[0];
                        if (v[0] < 0 || end > to) {
                            return out;
                        }
                        out.add(new Slot(i, start, 2));
                        if (depth < 8) {
                            out.addAll(slots(b, start, end, depth + 1));
                        }
                        i = end;
                        break;
                    case 1:
                        i += 8;
                        break;
                    case 5:
                        i += 4;
                        break;
                    default:
                        return out;
                }
            }
        } catch (IndexOutOfBoundsException e) {
            // not a message after all (a string or bytes payload): stop here
        }
        return out;
    }

    static long[] readVarint(byte[] b, int i, int to) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (i >= to) {
                throw new IndexOutOfBoundsException();
            }
            byte x = b[i++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return new long[] {v, i};
            }
        }
        throw new IndexOutOfBoundsException();
    }

    static final long[] HUGE = {0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL, 0x1_0000_0000L, Long.MAX_VALUE, -1L, 1L << 20,
            (1L << 20) + 1};

    /** Every length prefix and varint of {@code seed} replaced by huge values (and by overlong varints). */
    static List<byte[]> hugeLengthsAndVarints(byte[] seed) {
        List<byte[]> out = new ArrayList<>();
        for (Slot s : slots(seed, 0, seed.length, 0)) {
            byte[] head = Arrays.copyOf(seed, s.start);
            byte[] tail = Arrays.copyOfRange(seed, s.end, seed.length);
            for (long h : HUGE) {
                out.add(concat(head, varint(h), tail));
            }
            if (s.wireType == 2) {
                long[] v = readVarint(seed, s.start, s.end);
                out.add(concat(head, varint(v[0] + 1), tail));
                out.add(concat(head, varint(v[0] + 1000), tail));
                out.add(concat(head, varint(Math.max(0, v[0] - 1)), tail));
            }
            // 11 continuation bytes: a varint longer than 10 bytes is malformed
            byte[] overlong = new byte[11];
            Arrays.fill(overlong, (byte) 0xFF);
            out.add(concat(head, overlong, tail));
        }
        return out;
    }

    /** 1..8 random mutations of a seed. */
    static byte[] mutate(byte[] seed, List<byte[]> others, Random r) {
        byte[] b = seed.clone();
        for (int m = 1 + r.nextInt(r.nextBoolean() ? 2 : 8); m > 0; m--) {
            int len = b.length;
            int at = len == 0 ? 0 : r.nextInt(len);
            switch (r.nextInt(10)) {
                case 0:
                    if (len > 0) {
                        b[at] ^= (byte) (1 << r.nextInt(8));
                    }
                    break;
                case 1:
                    if (len > 0) {
                        b[at] = (byte) r.nextInt(256);
                    }
                    break;
                case 2:
                    if (len > 0) {
                        b[at] = new byte[] {0, (byte) 0xFF, (byte) 0x80, 0x7F, 1}[r.nextInt(5)];
                    }
                    break;
                case 3: { // insert random bytes
                    byte[] ins = new byte[1 + r.nextInt(8)];
                    r.nextBytes(ins);
                    b = concat(Arrays.copyOf(b, at), ins, Arrays.copyOfRange(b, at, len));
                    break;
                }
                case 4: // delete a range
                    if (len > 0) {
                        int n = 1 + r.nextInt(Math.min(16, len - at));
                        b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, at + n, len));
                    }
                    break;
                case 5: // duplicate a range
                    if (len > 0) {
                        int n = 1 + r.nextInt(Math.min(32, len - at));
                        b = concat(Arrays.copyOf(b, at + n), Arrays.copyOfRange(b, at, len));
                    }
                    break;
                case 6: // truncate
                    b = Arrays.copyOf(b, at);
                    break;
                case 7: { // splice with another seed
                    byte[] o = others.get(r.nextInt(others.size()));
                    int from = o.length == 0 ? 0 : r.nextInt(o.length);
                    b = concat(Arrays.copyOf(b, at), Arrays.copyOfRange(o, from, o.length));
                    break;
                }
                case 8: { // a huge varint somewhere
                    b = concat(Arrays.copyOf(b, at), varint(HUGE[r.nextInt(HUGE.length)]), Arrays.copyOfRange(b, at, len));
                    break;
                }
                default: { // append random tail
                    byte[] tail = new byte[1 + r.nextInt(16)];
                    r.nextBytes(tail);
                    b = concat(b, tail);
                    break;
                }
            }
        }
        return b;
    }
}
