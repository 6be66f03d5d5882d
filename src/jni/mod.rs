//! JNI exports: decode arguments, call the core, map errors. Nothing else lives here.
