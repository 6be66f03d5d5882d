//! The one place where a failure becomes a Java exception.
//!
//! Every export resolves its `EnvOutcome` with [`ThrowJavaException`]:
//!
//! | failure                                              | Java exception                        |
//! |------------------------------------------------------|---------------------------------------|
//! | core error, `ErrorClass::InvalidInput`               | `IllegalArgumentException`            |
//! | core error, `ErrorClass::Internal`                   | `IllegalStateException`               |
//! | null handle (object already closed)                  | `IllegalStateException`               |
//! | null array / buffer argument                         | `NullPointerException`                |
//! | bad offset / length given to `schemaDecode`          | `IllegalArgumentException`            |
//! | direct buffer region outside its capacity            | `IndexOutOfBoundsException`           |
//! | array region outside the array (`GetByteArrayRegion`)| `ArrayIndexOutOfBoundsException` (the JVM's, left pending) |
//! | any other JNI failure without a pending exception    | `IllegalStateException`               |
//! | a Java exception already pending                     | left pending, nothing new is thrown   |
//! | a caught panic                                       | `IllegalStateException("panic ...")`  |
//!
//! A panic never aborts the process and nothing here calls `fatal_error`: this code runs inside
//! HBase RegionServers.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ::jni::errors::{Error as JniCrateError, ErrorPolicy, JniError as JniCode};
use ::jni::objects::{JString, JThrowable, JValue};
use ::jni::strings::{JNIStr, JNIString};
use ::jni::{jni_sig, jni_str, Env};

use crate::error::{Error as CoreError, ErrorClass};

/// Everything an `intern_*` function of the JNI layer can fail with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BridgeError {
    /// A failure of the pure-Rust core.
    #[error(transparent)]
    Core(#[from] CoreError),
    /// A failure of a JNI call (often: a Java exception is pending).
    #[error("JNI call failed: {0}")]
    Jni(#[from] JniCrateError),
    /// A `null` array or buffer argument; the name of the parameter.
    #[error("{0} must not be null")]
    NullArgument(&'static str),
    /// The null handle: the Java owner was closed; what kind of object it was.
    #[error("native {0} already closed")]
    Closed(&'static str),
    /// A bad argument detected by the JNI layer itself (offsets, lengths, buffer kind).
    #[error("{0}")]
    InvalidArgument(String),
    /// A region outside a direct buffer.
    #[error("{0}")]
    IndexOutOfBounds(String),
}

pub(crate) type BridgeResult<T> = std::result::Result<T, BridgeError>;

const ILLEGAL_ARGUMENT: &JNIStr = jni_str!("java/lang/IllegalArgumentException");
const ILLEGAL_STATE: &JNIStr = jni_str!("java/lang/IllegalStateException");
const NULL_POINTER: &JNIStr = jni_str!("java/lang/NullPointerException");
const INDEX_OUT_OF_BOUNDS: &JNIStr = jni_str!("java/lang/IndexOutOfBoundsException");
const ARRAY_INDEX_OUT_OF_BOUNDS: &JNIStr = jni_str!("java/lang/ArrayIndexOutOfBoundsException");
const OUT_OF_MEMORY: &JNIStr = jni_str!("java/lang/OutOfMemoryError");

impl BridgeError {
    /// The Java exception class (JNI internal name) this error becomes.
    fn java_class(&self) -> &'static JNIStr {
        match self {
            BridgeError::Core(e) => match e.class() {
                ErrorClass::InvalidInput => ILLEGAL_ARGUMENT,
                ErrorClass::Internal => ILLEGAL_STATE,
            },
            // jni 0.22 catches and clears the ArrayIndexOutOfBoundsException of
            // Get<Type>ArrayRegion and reports it as `IndexOutOfBounds`: re-throw it as such.
            BridgeError::Jni(JniCrateError::IndexOutOfBounds) => ARRAY_INDEX_OUT_OF_BOUNDS,
            BridgeError::Jni(JniCrateError::NullPtr(_)) => NULL_POINTER,
            BridgeError::Jni(JniCrateError::JniCall(JniCode::NoMemory)) => OUT_OF_MEMORY,
            BridgeError::Jni(_) => ILLEGAL_STATE,
            BridgeError::NullArgument(_) => NULL_POINTER,
            BridgeError::Closed(_) => ILLEGAL_STATE,
            BridgeError::InvalidArgument(_) => ILLEGAL_ARGUMENT,
            BridgeError::IndexOutOfBounds(_) => INDEX_OUT_OF_BOUNDS,
        }
    }
}

/// The `ErrorPolicy` of every export: maps [`BridgeError`]s and panics to Java exceptions (see the
/// table above) and returns the type's default (`0`, `null`, `()`) to the JVM, which ignores it
/// because an exception is pending.
pub(crate) struct ThrowJavaException;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowJavaException {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: BridgeError,
    ) -> ::jni::errors::Result<T> {
        if !env.exception_check() {
            throw(env, err.java_class(), &err.to_string(), None)?;
        }
        // else: a Java exception is already pending (a JNI-level failure); it wins.
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _captures: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> ::jni::errors::Result<T> {
        let message = panic_exception_message(&*payload);
        drop_payload(payload);
        // A panic is a bug and must be seen: if a Java exception happened to be pending, it
        // becomes the cause of the IllegalStateException instead of hiding the panic.
        let pending = env.exception_occurred();
        if pending.is_some() {
            env.exception_clear();
        }
        throw(env, ILLEGAL_STATE, &message, pending.as_ref())?;
        Ok(T::default())
    }
}

/// The message of the `IllegalStateException` a panic becomes; always contains "panic".
pub(crate) fn panic_exception_message(payload: &(dyn Any + Send)) -> String {
    format!(
        "panic in native hbase-rowkey code (please report): {}",
        panic_payload_text(payload)
    )
}

/// The text a panic was raised with (`panic!("...")` gives a `&str` or a `String`).
pub(crate) fn panic_payload_text(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.as_str()
    } else {
        "(non-string panic payload)"
    }
}

/// Drops a panic payload; a payload whose `Drop` panics again is leaked instead of unwinding.
fn drop_payload(payload: Box<dyn Any + Send + 'static>) {
    if let Err(second) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(second);
    }
}

/// Throws a new `class(message)` (or `class(message, cause)`), leaving it pending.
fn throw(
    env: &mut Env<'_>,
    class: &JNIStr,
    message: &str,
    cause: Option<&JThrowable<'_>>,
) -> ::jni::errors::Result<()> {
    // Plain FindClass: java.lang classes resolve from any class loader (HBase may load our jar
    // through a DynamicClassLoader).
    let class = env.find_class(class)?;
    let thrown = match cause {
        None => env.throw_new(&class, JNIString::new(message)),
        Some(cause) => {
            let message = JString::from_str(env, message)?;
            let exception = env.new_object(
                &class,
                jni_sig!("(Ljava/lang/String;Ljava/lang/Throwable;)V"),
                &[JValue::from(&message), JValue::from(cause)],
            )?;
            let exception = env.cast_local::<JThrowable>(exception)?;
            env.throw(exception)
        }
    };
    match thrown {
        // `throw*` report success as `Err(JavaException)`: the exception is now pending.
        Ok(()) | Err(JniCrateError::JavaException) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_errors_map_by_class() {
        let invalid = BridgeError::from(CoreError::UnknownField("x".into()));
        assert_eq!(invalid.java_class(), ILLEGAL_ARGUMENT);
        assert_eq!(invalid.to_string(), "unknown field 'x'");
        let internal = BridgeError::from(CoreError::Internal("bug".into()));
        assert_eq!(internal.java_class(), ILLEGAL_STATE);
    }

    #[test]
    fn bridge_errors_map_to_their_exceptions() {
        assert_eq!(BridgeError::Closed("schema").java_class(), ILLEGAL_STATE);
        assert_eq!(
            BridgeError::Closed("schema").to_string(),
            "native schema already closed"
        );
        assert_eq!(BridgeError::NullArgument("row").java_class(), NULL_POINTER);
        assert_eq!(BridgeError::NullArgument("row").to_string(), "row must not be null");
        assert_eq!(
            BridgeError::InvalidArgument(String::new()).java_class(),
            ILLEGAL_ARGUMENT
        );
        assert_eq!(
            BridgeError::IndexOutOfBounds(String::new()).java_class(),
            INDEX_OUT_OF_BOUNDS
        );
        assert_eq!(
            BridgeError::from(JniCrateError::IndexOutOfBounds).java_class(),
            ARRAY_INDEX_OUT_OF_BOUNDS
        );
        assert_eq!(
            BridgeError::from(JniCrateError::JavaException).java_class(),
            ILLEGAL_STATE
        );
    }

    #[test]
    fn panic_messages_name_the_panic() {
        let payload = catch_unwind(|| panic!("self-test panic")).unwrap_err();
        let message = panic_exception_message(&*payload);
        assert!(
            message.contains("panic") && message.ends_with("self-test panic"),
            "{message}"
        );

        let n = 7;
        let payload = catch_unwind(|| panic!("formatted {n}")).unwrap_err();
        assert!(panic_exception_message(&*payload).ends_with("formatted 7"));

        let payload = catch_unwind(|| std::panic::panic_any(42u8)).unwrap_err();
        assert!(panic_exception_message(&*payload).contains("non-string"));
    }
}
