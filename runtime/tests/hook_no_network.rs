//! A hook never touches the network: a static scan of the hook runtime's sources for
//! networking imports (the reference keeps the same check as `no-network-on-the-hook-path`).

use std::path::{Path, PathBuf};

const FORBIDDEN: [&str; 10] = [
    "std::net",
    "TcpStream",
    "TcpListener",
    "UdpSocket",
    "reqwest",
    "ureq",
    "hyper",
    "use http",
    "http::",
    "tokio::net",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn offenders(files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            for pattern in FORBIDDEN {
                if line.contains(pattern) {
                    found.push(format!("{}:{}: {pattern}", file.display(), n + 1));
                }
            }
        }
    }
    found
}

#[test]
fn the_hook_runtime_imports_no_networking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src/hook"), &mut files);
    files.push(root.join("src/bin/acc-hook.rs"));
    assert!(
        files.len() > 10,
        "the scan sees the hook sources: {files:?}"
    );
    assert_eq!(offenders(&files), Vec::<String>::new());
}

#[test]
fn the_scan_would_catch_an_import() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.rs");
    std::fs::write(&bad, "use std::net::TcpStream;\nfn f() {}\n").unwrap();
    let found = offenders(&[bad]);
    assert_eq!(found.len(), 2, "{found:?}");
}
