//! Nothing: the package is its benchmark, `core.rs` (`cargo make bench-rust`).
