//! JNI exports: decode arguments, call the core, map errors. Nothing else lives here.
//!
//! One module per Java class with native methods (`row_key_native` for
//! `org.rowkey.hbase.RowKeyNative`, the natives several classes call; `key_seeker` and
//! `native_aggregator` for the classes that own their native objects alone); errors and panics become Java exceptions in one place
//! (`errors`).

// The exports are found by their symbol names, never by a Rust path: `pub` is what a JNI export
// is written with, not the crate's border (lib.rs warns of any other `pub` no path reaches).
#![allow(unreachable_pub)]

/// A JNI export of the usual shape: a `static native` method whose body runs inside
/// `EnvUnowned::with_env` (which catches panics) and whose `BridgeResult` is resolved by
/// [`errors::ThrowJavaException`], the one error-to-exception mapping. The export's full JNI
/// name is written out, so a grep for it finds its definition.
///
/// ```text
/// jni_export! {
///     /// docs
///     fn Java_org_rowkey_hbase_RowKeyNative_schemaKeyLength<'local>(_env, schema: jlong) -> jint {
///         as_jint(schema_ref(schema)?.key_length())
///     }
/// }
/// ```
///
/// `#[unsafe(no_mangle)]`: sound because each name is the JNI name of one `static native`
/// method of one of our classes, which no other library the JVM loads defines.
macro_rules! jni_export {
    ($(#[$meta:meta])* fn $name:ident<$lt:lifetime>($env:pat $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty $body:block) => {
        $(#[$meta])*
        #[unsafe(no_mangle)]
        pub extern "system" fn $name<$lt>(
            mut unowned_env: ::jni::EnvUnowned<$lt>,
            _class: ::jni::objects::JClass<$lt>,
            $($arg: $ty),*
        ) -> $ret {
            unowned_env
                .with_env(|$env: &mut ::jni::Env<$lt>| -> $crate::jni::errors::BridgeResult<$ret> { $body })
                .resolve::<$crate::jni::errors::ThrowJavaException>()
        }
    };
}

mod errors;
mod key_seeker;
mod load;
mod native_aggregator;
mod row_key_native;
#[cfg(feature = "test-hooks")]
mod test_hooks;
