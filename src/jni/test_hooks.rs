//! Exports of the test-only class `org.rowkey.hbase.NativeTestHooks`, compiled only with the
//! `test-hooks` cargo feature: the library that ships in the jar has none of them (the jar check
//! asserts it). The tests and benchmarks load the library built with the feature.
#![allow(non_snake_case)] // JNI export names

use ::jni::sys::{self, jint, jlong};

jni_export! {
    /// Panics on purpose, so a Java test can prove a panic becomes an `IllegalStateException`
    /// instead of killing the JVM.
    fn Java_org_rowkey_hbase_NativeTestHooks_selfTestPanic<'local>(_env) -> () {
        panic!("self-test panic")
    }
}

/// The cost floor of a per-row JNI call: the same arguments as `compareArray`, no work; always 0.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_rowkey_hbase_NativeTestHooks_callFloor(
    _env: *mut sys::JNIEnv,
    _class: sys::jclass,
    _comparator: jlong,
    _row: sys::jbyteArray,
    _offset: jint,
    _length: jint,
) -> jint {
    0
}
