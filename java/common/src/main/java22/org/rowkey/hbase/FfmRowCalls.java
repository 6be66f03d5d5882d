package org.rowkey.hbase;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * Java 22+ (META-INF/versions/22 of the multi-release jar): the per-row calls as foreign-function
 * (FFM) downcalls with {@code Linker.Option.critical(true)} into the plain {@code extern "C"}
 * functions of the same native library ({@code src/ffi.rs}). A heap {@code byte[]} is passed as
 * a heap segment ({@code MemorySegment.ofArray}), which a critical downcall hands to native code
 * as a pointer into the array, without a copy; a direct buffer as its address. A critical call
 * must be short and must not call back into the JVM: the compare neither allocates nor blocks.
 *
 * <p>The {@code java.lang.foreign} API is reached through method handles looked up once, so this
 * source compiles with any javac (the build needs no JDK 22) and runs only on a JVM that has the
 * API; per row, the calls go through {@code static final} handles that the JIT inlines into the
 * caller like a direct call ({@code MemorySegment.ofArray}'s wrapper is scalar-replaced).
 *
 * <p>The native functions never throw: when one cannot answer (closed handle, bad arguments, a
 * caught panic) it returns {@link RowCalls#FFI_ERROR}, and the call is repeated through JNI, which
 * answers or throws the same exception as on Java 8–21. The symbols are found with
 * {@code SymbolLookup.loaderLookup()}: the libraries loaded by this class's class loader, i.e. the
 * copy {@link NativeLoader} loaded with {@code System.load}.
 */
final class FfmRowCalls extends RowCalls {
    /** rowkey_compare as (long comparator, byte[] row, long offset, long length) -> int. */
    private static final MethodHandle COMPARE_ARRAY;
    /** rowkey_compare as (long comparator, long address, long offset, long length) -> int. */
    private static final MethodHandle COMPARE_ADDRESS;
    /** (ByteBuffer direct) -> long: the address of the buffer's position. */
    private static final MethodHandle POSITION_ADDRESS;

    /** The linker's pieces for downcalls of the per-row shape, looked up once. */
    private static final Object LINKER;
    private static final Object SYMBOLS;
    private static final Object ROW_CALL;
    private static final Object CRITICAL_ONLY;
    private static final Method FIND;
    private static final Method DOWNCALL;
    /** (byte[]) -> MemorySegment: a heap segment over the array. */
    private static final MethodHandle OF_ARRAY;

    static {
        RowKeyNative.ensureLoaded();
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> linkerType = Class.forName("java.lang.foreign.Linker");
            Class<?> option = Class.forName("java.lang.foreign.Linker$Option");
            Class<?> symbolLookup = Class.forName("java.lang.foreign.SymbolLookup");
            Class<?> descriptor = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> layout = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
            Class<?> layouts = Array.newInstance(layout, 0).getClass();
            Class<?> options = Array.newInstance(option, 0).getClass();

            LINKER = linkerType.getMethod("nativeLinker").invoke(null);
            // Caller-sensitive: called reflectively from here, it sees this class's loader.
            SYMBOLS = symbolLookup.getMethod("loaderLookup").invoke(null);

            Object javaInt = valueLayout.getField("JAVA_INT").get(null);
            Object javaLong = valueLayout.getField("JAVA_LONG").get(null);
            Object address = valueLayout.getField("ADDRESS").get(null);
            Object arguments = Array.newInstance(layout, 4);
            Array.set(arguments, 0, javaLong);
            Array.set(arguments, 1, address);
            Array.set(arguments, 2, javaLong);
            Array.set(arguments, 3, javaLong);
            // (long comparator, MemorySegment base, long offset, long length) -> int
            ROW_CALL = descriptor.getMethod("of", layout, layouts).invoke(null, javaInt, arguments);

            Object critical = option.getMethod("critical", boolean.class).invoke(null, true);
            CRITICAL_ONLY = Array.newInstance(option, 1);
            Array.set(CRITICAL_ONLY, 0, critical);

            FIND = symbolLookup.getMethod("find", String.class);
            DOWNCALL = linkerType.getMethod("downcallHandle", segment, descriptor, options);
            OF_ARRAY = lookup.findStatic(segment, "ofArray", MethodType.methodType(segment, byte[].class));
            MethodHandle ofAddress = lookup.findStatic(segment, "ofAddress", MethodType.methodType(segment, long.class));
            MethodHandle ofBuffer = lookup.findStatic(segment, "ofBuffer", MethodType.methodType(segment, Buffer.class));
            MethodHandle addressOf = lookup.findVirtual(segment, "address", MethodType.methodType(long.class));

            MethodHandle compare = rowCall("rowkey_compare");
            COMPARE_ARRAY = MethodHandles.filterArguments(compare, 1, OF_ARRAY);
            COMPARE_ADDRESS = MethodHandles.filterArguments(compare, 1, ofAddress);
            POSITION_ADDRESS = MethodHandles.filterReturnValue(ofBuffer, addressOf)
                    .asType(MethodType.methodType(long.class, ByteBuffer.class));
        } catch (ReflectiveOperationException e) {
            throw unavailable(e);
        }
    }

    /**
     * A critical downcall of the library's function {@code symbol}, of the per-row shape
     * {@code (long comparator, byte[] row, long offset, long length) -> int}. Also what the tests
     * and benchmarks call their test-hook functions with.
     */
    static MethodHandle arrayRowCall(String symbol) {
        try {
            return MethodHandles.filterArguments(rowCall(symbol), 1, OF_ARRAY);
        } catch (ReflectiveOperationException e) {
            throw unavailable(e);
        }
    }

    /** The downcall of {@code symbol}: (long comparator, MemorySegment base, long offset, long length) -> int. */
    private static MethodHandle rowCall(String symbol) throws ReflectiveOperationException {
        return (MethodHandle) DOWNCALL.invoke(LINKER, symbol(FIND, SYMBOLS, symbol), ROW_CALL, CRITICAL_ONLY);
    }

    private static UnsupportedOperationException unavailable(ReflectiveOperationException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return new UnsupportedOperationException("hbase-rowkey: FFM critical downcalls unavailable: " + cause, cause);
    }

    FfmRowCalls() {}

    private static Object symbol(Method find, Object symbols, String name) throws ReflectiveOperationException {
        Optional<?> found = (Optional<?>) find.invoke(symbols, name);
        if (!found.isPresent()) {
            throw new UnsatisfiedLinkError("hbase-rowkey: symbol " + name
                    + " not found in the native library loaded from " + NativeLoader.loadedFrom());
        }
        return found.get();
    }

    @Override
    String mechanism() {
        return FFM;
    }

    @Override
    int compareArray(long comparator, byte[] row, int offset, int length) {
        if (row == null || offset < 0 || length < 0 || offset > row.length - length) {
            // Native code cannot see the array's bounds: JNI answers or throws as it should.
            return RowKeyNative.compareArray(comparator, row, offset, length);
        }
        int result;
        try {
            result = (int) COMPARE_ARRAY.invokeExact(comparator, row, (long) offset, (long) length);
        } catch (Throwable t) {
            throw unexpected(t);
        }
        if (result == FFI_ERROR) {
            return RowKeyNative.compareArray(comparator, row, offset, length);
        }
        return result;
    }

    @Override
    int compareDirect(long comparator, ByteBuffer direct, int offset, int length) {
        if (direct == null || !direct.isDirect() || offset < 0 || length < 0 || offset > direct.capacity() - length) {
            return RowKeyNative.compareDirect(comparator, direct, offset, length);
        }
        int result;
        try {
            // ofBuffer covers [position, limit): index 0 is at its address minus the position.
            long base = (long) POSITION_ADDRESS.invokeExact(direct) - direct.position();
            result = (int) COMPARE_ADDRESS.invokeExact(comparator, base, (long) offset, (long) length);
        } catch (Throwable t) {
            throw unexpected(t);
        } finally {
            // The buffer's memory must outlive the call, which only sees its address.
            NativeCleaner.keepAlive(direct);
        }
        if (result == FFI_ERROR) {
            return RowKeyNative.compareDirect(comparator, direct, offset, length);
        }
        return result;
    }

    private static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new IllegalStateException("hbase-rowkey: foreign call failed", t);
    }
}
