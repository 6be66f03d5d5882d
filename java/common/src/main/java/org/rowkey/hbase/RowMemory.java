package org.rowkey.hbase;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;

/**
 * Plain memory access for the JNI per-row path (Java 8–23), through {@code sun.misc.Unsafe}: a
 * row of a {@code byte[]} copied to native memory 8 bytes at a time, and the address of a direct
 * buffer, so a row reaches the native compare by address with no JNI call
 * ({@code GetByteArrayRegion}, {@code GetDirectBufferAddress}) in between: each of those enters
 * the VM and costs more than the whole compare, and {@code ByteBuffer.put} of a short row costs
 * several times this copy.
 *
 * <p>Not {@link #AVAILABLE} (and the JNI path then takes its slower, JNI-only route) where Unsafe
 * or the buffer's address field is missing, on machines that may not allow unaligned loads, and
 * on Java 24+, where Unsafe's memory access prints a deprecation warning (those JVMs use the FFM
 * path anyway unless JNI is forced). Callers check every bound before reading.
 *
 * <p>Unsafe is reached through a method handle (the source is compiled for Java 8 with
 * {@code --release 8}, which hides {@code sun.misc}); a {@code static final} handle is inlined by
 * the JIT into its caller, down to Unsafe's intrinsic load.
 */
@RunsIn(RunsIn.Where.NATIVE_BRIDGE)
final class RowMemory {
    /** Whether {@link #copy} and {@link #address} may be called. */
    static final boolean AVAILABLE;
    /** Why not, when not; for diagnostics. */
    static final String UNAVAILABLE_REASON;

    /** Unsafe.getLong(Object, long) bound to the Unsafe instance: (Object, long) -> long. */
    private static final MethodHandle GET_LONG;
    /** Unsafe.putLong(long, long): (address, value) -> void. */
    private static final MethodHandle PUT_LONG;
    /** Unsafe.getByte(Object, long): (Object, long) -> byte. */
    private static final MethodHandle GET_BYTE;
    /** Unsafe.putByte(long, byte): (address, value) -> void. */
    private static final MethodHandle PUT_BYTE;
    private static final long BYTE_ARRAY_BASE;
    private static final long BUFFER_ADDRESS;

    static {
        MethodHandle getLong = null;
        MethodHandle putLong = null;
        MethodHandle getByte = null;
        MethodHandle putByte = null;
        long base = 0;
        long address = 0;
        String reason = null;
        String arch = System.getProperty("os.arch", "");
        if (RowCalls.javaFeatureVersion() >= 24) {
            reason = "Java " + RowCalls.javaFeatureVersion() + " warns on sun.misc.Unsafe memory access";
        } else if (!arch.equals("amd64") && !arch.equals("x86_64") && !arch.equals("aarch64")) {
            reason = "unaligned loads not known to be allowed on " + arch;
        } else {
            try {
                Class<?> type = Class.forName("sun.misc.Unsafe");
                Field theUnsafe = type.getDeclaredField("theUnsafe");
                theUnsafe.setAccessible(true);
                Object unsafe = theUnsafe.get(null);
                base = ((Number) type.getMethod("arrayBaseOffset", Class.class).invoke(unsafe, byte[].class)).longValue();
                address = ((Number) type.getMethod("objectFieldOffset", Field.class)
                        .invoke(unsafe, Buffer.class.getDeclaredField("address"))).longValue();
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                getLong = lookup.findVirtual(type, "getLong", MethodType.methodType(long.class, Object.class, long.class))
                        .bindTo(unsafe);
                putLong = lookup.findVirtual(type, "putLong", MethodType.methodType(void.class, long.class, long.class))
                        .bindTo(unsafe);
                getByte = lookup.findVirtual(type, "getByte", MethodType.methodType(byte.class, Object.class, long.class))
                        .bindTo(unsafe);
                putByte = lookup.findVirtual(type, "putByte", MethodType.methodType(void.class, long.class, byte.class))
                        .bindTo(unsafe);
                ByteBuffer probe = ByteBuffer.allocateDirect(8);
                if ((long) getLong.invokeExact((Object) probe, address) != RowKeyNative.directAddress(probe)) {
                    reason = "Buffer.address does not hold the direct buffer's address";
                }
            } catch (Throwable t) {
                reason = "sun.misc.Unsafe unavailable: " + t;
            }
        }
        AVAILABLE = reason == null;
        UNAVAILABLE_REASON = reason;
        GET_LONG = AVAILABLE ? getLong : null;
        PUT_LONG = AVAILABLE ? putLong : null;
        GET_BYTE = AVAILABLE ? getByte : null;
        PUT_BYTE = AVAILABLE ? putByte : null;
        BYTE_ARRAY_BASE = base;
        BUFFER_ADDRESS = address;
    }

    private RowMemory() {}

    /**
     * Copies {@code row[offset, offset + length)} to {@code address}: 8 bytes at a time, the last 8
     * overlapping the ones before (rows shorter than 8 bytes byte by byte). The caller checked the
     * bounds and owns {@code length} bytes at {@code address}.
     */
    static void copy(byte[] row, int offset, int length, long address) {
        try {
            long from = BYTE_ARRAY_BASE + offset;
            if (length >= 8) {
                int last = length - 8;
                for (int i = 0; i < last; i += 8) {
                    PUT_LONG.invokeExact(address + i, (long) GET_LONG.invokeExact((Object) row, from + i));
                }
                PUT_LONG.invokeExact(address + last, (long) GET_LONG.invokeExact((Object) row, from + last));
            } else {
                for (int i = 0; i < length; i++) {
                    PUT_BYTE.invokeExact(address + i, (byte) GET_BYTE.invokeExact((Object) row, from + i));
                }
            }
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /** The address of index 0 of a direct buffer. */
    static long address(ByteBuffer direct) {
        try {
            return (long) GET_LONG.invokeExact((Object) direct, BUFFER_ADDRESS);
        } catch (Throwable t) {
            throw failed(t);
        }
    }

    /** Unsafe's loads and stores throw nothing; a failure here would be a broken JVM. */
    private static IllegalStateException failed(Throwable t) {
        return new IllegalStateException("hbase-rowkey: sun.misc.Unsafe access failed", t);
    }
}
