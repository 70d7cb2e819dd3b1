//! The code map's architecture invariants (docs/ARCHITECTURE.md, "Code map") that a scan of
//! the sources can check, each with a test proving that its scan catches a violation. The
//! hook's own "never opens the network" is `hook_no_network.rs`; "no import circle" is each
//! crate's `tests/import_circles.rs`.
//!
//! Comments and a file's trailing `#[cfg(test)]` module are not read (a test may name a
//! vendor to build a fixture; prose may mention anything); string literals are.

#[path = "../../tests/support/import_circles.rs"]
mod import_circles;

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `file:line: needle` for every needle in the code (and strings) of `files`, compared
/// without case.
fn hits(files: &[PathBuf], needles: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let code = import_circles::code_and_strings_of(&std::fs::read_to_string(file).unwrap());
        for (n, line) in code.lines().enumerate() {
            let lower = line.to_lowercase();
            for needle in needles {
                if lower.contains(&needle.to_lowercase()) {
                    found.push(format!("{}:{}: {needle}", file.display(), n + 1));
                }
            }
        }
    }
    found
}

/// Every client acc has an adapter for, and the model vendors behind them.
const VENDORS: [&str; 12] = [
    "claude",
    "codex",
    "gemini",
    "kimi",
    "antigravity",
    "grok",
    "copilot",
    "qwen",
    "opencode",
    "anthropic",
    "openai",
    "google",
];

fn core_files(runtime: &Path) -> Vec<PathBuf> {
    let mut files = rust_files(&runtime.join("src/core"));
    files.extend(rust_files(&runtime.join("src/store")));
    files
}

#[test]
fn core_never_names_a_vendor() {
    let files = core_files(&workspace().join("runtime"));
    assert!(files.len() > 20, "the scan sees the core: {files:?}");
    assert_eq!(hits(&files, &VENDORS), Vec::<String>::new());
}

/// The keys of the clients' own hook payloads and answers (tool input, event names, the
/// deny and context envelopes): only an adapter reads or writes them.
const PAYLOAD_KEYS: [&str; 12] = [
    "\"tool_input\"",
    "\"tool_name\"",
    "\"tool_response\"",
    "\"hook_event_name\"",
    "\"hookEventName\"",
    "\"toolName\"",
    "\"toolInput\"",
    "\"transcript_path\"",
    "\"hookSpecificOutput\"",
    "\"permissionDecision\"",
    "\"additionalContext\"",
    "\"agent_id\"",
];

#[test]
fn only_the_adapter_crates_know_a_clients_payload_shape() {
    let files = rust_files(&workspace().join("runtime/src"));
    assert!(
        files.len() > 100,
        "the scan sees the runtime: {}",
        files.len()
    );
    assert_eq!(hits(&files, &PAYLOAD_KEYS), Vec::<String>::new());
}

/// The workspace's crates, lowest first: a crate may depend only on crates before it.
const LAYERS: [&[&str]; 6] = [
    &["acc-shell-reader"],
    &["acc-sdk"],
    &[
        "acc-adapter-claude-code",
        "acc-adapter-codex",
        "acc-adapter-gemini-cli",
        "acc-adapter-kimi-code",
        "acc-adapter-antigravity",
        "acc-adapter-grok",
        "acc-adapter-copilot",
        "acc-adapter-qwen-code",
        "acc-adapter-opencode",
    ],
    &["acc-runtime"],
    &["acc-conformance"],
    &["acc-certify"],
];

fn layer(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&name))
}

/// The `acc-*` crates a manifest depends on (any dependency table).
fn acc_dependencies(manifest: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut out = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line.ends_with("dependencies]");
            continue;
        }
        if in_deps && line.starts_with("acc-") {
            let name: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            out.push(name);
        }
    }
    out
}

fn package_name(manifest: &str) -> String {
    manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("name = \""))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_string()
}

/// `crate -> dependency` for every dependency on a crate of the same or a higher layer.
fn upward_dependencies(manifests: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for path in manifests {
        let text = std::fs::read_to_string(path).unwrap();
        let name = package_name(&text);
        let own = layer(&name).unwrap_or_else(|| panic!("{name} is in no layer: add it"));
        for dep in acc_dependencies(&text) {
            let theirs = layer(&dep).unwrap_or(usize::MAX);
            if dep != name && theirs >= own {
                found.push(format!("{name} -> {dep}"));
            }
        }
    }
    found
}

fn manifests() -> Vec<PathBuf> {
    let root = workspace();
    let mut out: Vec<PathBuf> = ["runtime", "conformance", "certify"]
        .iter()
        .map(|d| root.join(d).join("Cargo.toml"))
        .collect();
    for entry in std::fs::read_dir(root.join("adapters")).unwrap().flatten() {
        let manifest = entry.path().join("Cargo.toml");
        if manifest.is_file() {
            out.push(manifest);
        }
    }
    out
}

#[test]
fn dependencies_flow_one_way_and_nothing_in_runtime_imports_certify() {
    let manifests = manifests();
    let members = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let members = members
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .map_or(0, |list| list.matches('"').count() / 2);
    assert_eq!(
        manifests.len(),
        members,
        "every workspace member is layered: {manifests:?}"
    );
    assert_eq!(upward_dependencies(&manifests), Vec::<String>::new());
    let runtime = rust_files(&workspace().join("runtime/src"));
    assert_eq!(
        hits(&runtime, &["acc_certify::", "acc_conformance::"]),
        Vec::<String>::new()
    );
}

#[test]
fn the_shell_reader_depends_on_nothing() {
    let text =
        std::fs::read_to_string(workspace().join("adapters/shell-reader/Cargo.toml")).unwrap();
    let deps: Vec<&str> = text
        .split("[dependencies]")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .collect();
    assert_eq!(deps, Vec::<&str>::new());
}

#[test]
fn the_command_layer_never_touches_sqlite() {
    let files = rust_files(&workspace().join("runtime/src/cli"));
    assert!(files.len() > 10, "the scan sees the CLI: {files:?}");
    assert_eq!(hits(&files, &SQLITE), Vec::<String>::new());
}

/// What reaching SQLite directly looks like.
const SQLITE: [&str; 3] = ["rusqlite", "prepare_cached(", "execute_batch("];

/// Notes that live outside the repository: a citation of them sends a reader nowhere.
const OUTSIDE_NOTES: [&str; 1] = ["CLIENTS.md"];

fn citations(files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    // This file names the notes to look for them.
    let this = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/architecture.rs");
    for file in files.iter().filter(|f| **f != this) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if OUTSIDE_NOTES.iter().any(|note| line.contains(note)) {
                found.push(format!("{}:{}", file.display(), n + 1));
            }
        }
    }
    found
}

#[test]
fn no_source_cites_notes_outside_the_repository() {
    let root = workspace();
    let mut files = Vec::new();
    for dir in ["adapters", "runtime", "certify", "conformance"] {
        files.extend(rust_files(&root.join(dir)));
    }
    assert!(
        files.len() > 300,
        "the scan sees the sources: {}",
        files.len()
    );
    assert_eq!(citations(&files), Vec::<String>::new());
}

#[test]
fn each_scan_catches_a_violation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    std::fs::create_dir_all(root.join("src/core")).unwrap();
    std::fs::create_dir_all(root.join("src/store")).unwrap();
    std::fs::write(
        root.join("src/core/x.rs"),
        "// Claude in a comment is prose.\nconst ID: &str = \"claude-code\";\nfn f() {}\n\
         #[cfg(test)]\nmod tests { const C: &str = \"codex\"; }\n",
    )
    .unwrap();
    std::fs::write(root.join("src/store/y.rs"), "fn is_codex() {}\n").unwrap();
    let found = hits(&core_files(root), &VENDORS);
    assert_eq!(found.len(), 2, "{found:?}");

    std::fs::write(
        root.join("src/p.rs"),
        "fn f(v: &Value) { let _ = &v[\"tool_input\"]; }\n",
    )
    .unwrap();
    assert_eq!(hits(&[root.join("src/p.rs")], &PAYLOAD_KEYS).len(), 1);

    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"acc-runtime\"\n\n[dependencies]\nacc-sdk.workspace = true\n\n\
         [dev-dependencies]\nacc-certify = { path = \"../certify\" }\n",
    )
    .unwrap();
    assert_eq!(
        upward_dependencies(&[root.join("Cargo.toml")]),
        ["acc-runtime -> acc-certify"]
    );

    std::fs::write(
        root.join("src/q.rs"),
        "fn f(c: &rusqlite::Connection) { c.prepare_cached(\"SELECT 1\"); }\n",
    )
    .unwrap();
    assert_eq!(hits(&[root.join("src/q.rs")], &SQLITE).len(), 2);

    std::fs::write(root.join("src/c.rs"), "//! As REAL-CLIENTS.md §2 says.\n").unwrap();
    assert_eq!(citations(&[root.join("src/c.rs")]).len(), 1);
}
