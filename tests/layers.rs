//! The Rust layers of docs/design.md ("The planner's layers"), read from the sources: a module
//! uses its own layer and the layers below it, never one above, nor a peer beside it. Every
//! `crate::<module>` path outside a comment counts, in a `use` line or written inline; a path
//! between layers is written from `crate::`, and `super::` stays inside a folder.

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, each with its rank and its top-level modules (a file `src/<m>.rs` or a folder
/// `src/<m>/`). A module may use its own layer and every layer of a lower rank; two layers of
/// one rank are peers and use neither each other.
const LAYERS: &[(u32, &str, &[&str])] = &[
    (0, "plumbing", &["error", "limits", "memory", "handle", "wire", "proto"]),
    (1, "key model", &["key"]),
    (2, "per-row evaluation", &["eval"]),
    (2, "aggregates", &["aggregate"]),
    (3, "ranges", &["ranges"]),
    (3, "text", &["text"]),
    (4, "planner", &["plan"]),
    (5, "plan requests and replies", &["plan_wire"]),
    (6, "FFM functions", &["ffi"]),
    (7, "JNI exports", &["jni"]),
];

fn layer_of(module: &str) -> Option<(u32, &'static str)> {
    LAYERS
        .iter()
        .find(|(_, _, modules)| modules.contains(&module))
        .map(|&(rank, name, _)| (rank, name))
}

/// The top-level modules `source` names as `crate::<module>`, with their line numbers; comments
/// left out. `crate::{a, b::c}` names `a` and `b`.
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + "crate::".len()..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `mycrate::`, not ours
            }
            let names: Vec<&str> = match after.strip_prefix('{') {
                Some(group) => {
                    let group = group.split('}').next().unwrap_or("");
                    group.split(',').map(str::trim).collect()
                }
                None => vec![after],
            };
            for name in names {
                let ident: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !ident.is_empty() {
                    found.push((number + 1, ident));
                }
            }
        }
    }
    found
}

/// Every use in `source` (a file of `module`) of a module of a higher layer or a peer layer, or
/// of a module no layer holds.
fn violations(module: &str, file: &str, source: &str) -> Vec<String> {
    let Some((rank, layer)) = layer_of(module) else {
        return vec![format!(
            "{file}: module `{module}` is in no layer: give it one in tests/layers.rs"
        )];
    };
    let mut out = Vec::new();
    for (line, used) in crate_paths(source) {
        if used == module {
            continue;
        }
        match layer_of(&used) {
            None => out.push(format!("{file}:{line}: `crate::{used}` is in no layer")),
            Some((used_rank, used_layer)) if used_layer != layer && used_rank >= rank => out.push(format!(
                "{file}:{line}: {layer} (`{module}`) uses `crate::{used}` of {used_layer}, {}",
                if used_rank == rank {
                    "a peer layer"
                } else {
                    "a higher layer"
                }
            )),
            Some(_) => {}
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&src).unwrap();
        if relative == Path::new("lib.rs") {
            continue; // the root declares every module
        }
        let first = relative.components().next().unwrap().as_os_str().to_str().unwrap();
        let module = first.strip_suffix(".rs").unwrap_or(first);
        let source = fs::read_to_string(path).unwrap();
        found.extend(violations(module, &format!("src/{}", relative.display()), &source));
    }
    assert!(
        files.len() > 20,
        "read only {} files under {}",
        files.len(),
        src.display()
    );
    assert!(found.is_empty(), "imports across the layers:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_an_import_from_above_or_beside() {
    let planted = "use crate::error::Result;\nuse crate::plan::SourceQuery; // the planner\n";
    assert_eq!(violations("key", "src/key/schema.rs", planted).len(), 1);
    assert_eq!(violations("plan", "src/plan/table.rs", planted), Vec::<String>::new());
    assert_eq!(
        violations("text", "src/text.rs", "let x = crate::ranges::plan(s, p, 8);").len(),
        1
    );
    assert_eq!(
        violations("eval", "src/eval/comparator.rs", "use crate::{key::Schema, jni};").len(),
        1
    );
    assert_eq!(
        violations("key", "src/key/codec.rs", "// use crate::plan::Thing;").len(),
        0
    );
    assert_eq!(violations("wire", "src/wire.rs", "use crate::newthing::X;").len(), 1);
}
