//! `JNI_OnLoad`: runs once when the JVM loads the library, and installs a quiet panic hook.
//!
//! Rust's default panic hook prints every panic to stderr, with a full backtrace when
//! `RUST_BACKTRACE` is set. Inside a RegionServer, a panic on every row would flood its logs (and
//! take its time). Panics are still caught at the JNI boundary and become
//! `IllegalStateException`s carrying the panic message (`errors::ThrowJavaException`; the FFM
//! paths in `ffi` catch them too): this hook only decides what reaches stderr. It prints one line
//! per panic for the first [`DEFAULT_MAX_PANIC_LINES`] panics of the process (or
//! `HBASE_ROWKEY_MAX_PANIC_LINES`, read once at load), then one "further panics suppressed" line,
//! then nothing; never a backtrace.
//!
//! Only the loaded library installs it: the crate used as a Rust library (tests, benches) keeps
//! whatever hook its program has.

use std::ffi::c_void;
use std::io::Write;
use std::panic::{catch_unwind, PanicHookInfo};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

use ::jni::sys::{jint, JavaVM, JNI_VERSION_1_8};

/// Panic lines printed before the rest are suppressed, unless the environment says otherwise.
pub(crate) const DEFAULT_MAX_PANIC_LINES: u64 = 10;
/// Environment variable overriding [`DEFAULT_MAX_PANIC_LINES`] (a number; 0 prints only the
/// suppression line).
pub(crate) const MAX_PANIC_LINES_ENV: &str = "HBASE_ROWKEY_MAX_PANIC_LINES";
/// A panic message is cut to this many bytes in the log line.
const MAX_MESSAGE_BYTES: usize = 1000;

/// Called by the JVM when it loads the library (`System.load`), before any native method.
/// Installs the panic hook (once per process, whatever the number of loads) and asks for JNI 1.8.
///
/// Never unwinds: a panic while installing the hook is caught and only leaves the default hook.
#[unsafe(no_mangle)]
// SAFETY (of `no_mangle`): `JNI_OnLoad` is the name the JVM looks up in every library it loads,
// with this signature (`jint JNI_OnLoad(JavaVM *vm, void *reserved)`); no other symbol of this
// crate, and no dependency, defines it. The pointers are not used.
pub extern "system" fn JNI_OnLoad(_vm: *mut JavaVM, _reserved: *mut c_void) -> jint {
    let _ = catch_unwind(install_panic_hook);
    JNI_VERSION_1_8
}

static INSTALL: Once = Once::new();
static PANIC_LOG: PanicLog = PanicLog::new();

/// Replaces the process's panic hook with the rate-limited one (the first call only).
pub(crate) fn install_panic_hook() {
    INSTALL.call_once(|| {
        let max_lines = max_panic_lines(std::env::var(MAX_PANIC_LINES_ENV).ok().as_deref());
        std::panic::set_hook(Box::new(move |info| {
            if let Some(line) = PANIC_LOG.line(max_lines, &describe(info)) {
                // One write of one line; a failing stderr is ignored (`eprintln!` would panic
                // inside the hook, which aborts the process).
                let _ = std::io::stderr().lock().write_all(line.as_bytes());
            }
        }));
    });
}

/// The line limit for an `HBASE_ROWKEY_MAX_PANIC_LINES` value (default when unset or not a number).
pub(crate) fn max_panic_lines(setting: Option<&str>) -> u64 {
    setting
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_PANIC_LINES)
}

/// Counts panics and says which get a log line.
pub(crate) struct PanicLog {
    panics: AtomicU64,
}

impl PanicLog {
    pub(crate) const fn new() -> PanicLog {
        PanicLog {
            panics: AtomicU64::new(0),
        }
    }

    /// Counts one panic and returns its log line (ending in a newline): the panic described for
    /// the first `max_lines` panics, then one suppression notice, then `None`. Exact under
    /// concurrent panics: each count is taken once.
    pub(crate) fn line(&self, max_lines: u64, description: &str) -> Option<String> {
        let n = self.panics.fetch_add(1, Ordering::Relaxed);
        if n < max_lines {
            Some(format!(
                "hbase-rowkey: {description} (caught: it becomes a Java IllegalStateException; no backtrace)\n"
            ))
        } else if n == max_lines {
            Some(format!(
                "hbase-rowkey: {max_lines} native panics logged, further panics suppressed (each still becomes a Java \
                 IllegalStateException carrying its message; {MAX_PANIC_LINES_ENV} sets the number logged)\n"
            ))
        } else {
            None
        }
    }
}

/// "thread 'name' panicked at file:line:column: message", on one line, the message cut to
/// [`MAX_MESSAGE_BYTES`].
fn describe(info: &PanicHookInfo<'_>) -> String {
    let message = super::errors::panic_payload_text(info.payload());
    let thread = std::thread::current();
    let location = info
        .location()
        .map_or_else(|| "an unknown location".to_owned(), |l| l.to_string());
    format!(
        "thread '{}' panicked at {location}: {}",
        thread.name().unwrap_or("<unnamed>"),
        one_line(message)
    )
}

/// The message on one line (line breaks escaped), cut at a character boundary to
/// [`MAX_MESSAGE_BYTES`].
fn one_line(message: &str) -> String {
    let mut end = message.len().min(MAX_MESSAGE_BYTES);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    let mut line = message[..end].replace('\r', "\\r").replace('\n', "\\n");
    if end < message.len() {
        line.push_str(&format!("... ({} bytes)", message.len()));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn the_first_lines_then_one_notice_then_nothing() {
        let log = PanicLog::new();
        let lines: Vec<Option<String>> = (0..1000).map(|i| log.line(10, &format!("panic {i}"))).collect();
        for (i, line) in lines.iter().enumerate().take(10) {
            let line = line.as_deref().unwrap();
            assert!(line.contains(&format!("panic {i} ")) && line.ends_with('\n'), "{line}");
            assert_eq!(line.matches('\n').count(), 1);
        }
        assert!(lines[10].as_deref().unwrap().contains("further panics suppressed"));
        assert!(lines[11..].iter().all(Option::is_none));
    }

    #[test]
    fn concurrent_panics_are_counted_exactly() {
        let log = Arc::new(PanicLog::new());
        let printed: usize = (0..8)
            .map(|_| {
                let log = Arc::clone(&log);
                std::thread::spawn(move || (0..10_000).filter(|_| log.line(10, "x").is_some()).count())
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .sum();
        assert_eq!(printed, 11);
    }

    #[test]
    fn zero_lines_still_says_that_panics_are_suppressed() {
        let log = PanicLog::new();
        assert!(log.line(0, "x").unwrap().contains("suppressed"));
        assert_eq!(log.line(0, "x"), None);
    }

    #[test]
    fn the_limit_comes_from_the_environment_or_defaults() {
        assert_eq!(max_panic_lines(None), DEFAULT_MAX_PANIC_LINES);
        assert_eq!(max_panic_lines(Some("1000000")), 1_000_000);
        assert_eq!(max_panic_lines(Some(" 0 ")), 0);
        assert_eq!(max_panic_lines(Some("lots")), DEFAULT_MAX_PANIC_LINES);
        assert_eq!(max_panic_lines(Some("-1")), DEFAULT_MAX_PANIC_LINES);
    }

    #[test]
    fn messages_are_cut_to_one_bounded_line() {
        assert_eq!(one_line("a\nb\r\n"), "a\\nb\\r\\n");
        let long = "é".repeat(MAX_MESSAGE_BYTES);
        let line = one_line(&long);
        assert!(
            line.len() < MAX_MESSAGE_BYTES + 40 && line.ends_with(&format!("({} bytes)", long.len())),
            "{line}"
        );
    }

    /// The hook's own description of a real panic, and the panic still carries its message to
    /// the exception. The hook is installed only around this thread's panics; panics of other
    /// test threads meanwhile go to the previous hook.
    #[test]
    fn a_real_panic_is_described_and_its_message_still_reaches_the_exception() {
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let me = std::thread::current().id();
        let previous: Arc<dyn Fn(&PanicHookInfo<'_>) + Send + Sync> = Arc::from(std::panic::take_hook());
        {
            let (seen, previous) = (Arc::clone(&seen), Arc::clone(&previous));
            std::panic::set_hook(Box::new(move |info| {
                if std::thread::current().id() == me {
                    seen.lock().unwrap().push(describe(info));
                } else {
                    previous(info);
                }
            }));
        }
        let payload = catch_unwind(|| panic!("self-test panic {}", 42)).unwrap_err();
        let _ = catch_unwind(|| std::panic::panic_any(7u8));
        drop(std::panic::take_hook());
        std::panic::set_hook(Box::new(move |info| previous(info)));

        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(
            seen[0].contains("panicked at src/jni/load.rs:") && seen[0].ends_with(": self-test panic 42"),
            "{}",
            seen[0]
        );
        assert!(seen[1].ends_with("(non-string panic payload)"), "{}", seen[1]);
        let message = super::super::errors::panic_exception_message(&*payload);
        assert!(message.ends_with("self-test panic 42"), "{message}");
    }
}
