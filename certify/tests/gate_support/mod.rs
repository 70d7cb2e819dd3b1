//! Shared by the `gate_*`, `matrix_*`, `wire_*` and `diff_*` tests: the repository, a
//! disposable copy of it to break, and `acc-certify` run with an explicit environment.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use acc_conformance::hook_binary::{for_test_executable, require};
use assert_cmd::Command;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The `acc-hook` built beside `acc-certify`; the gate wires it into every sandbox.
pub fn hook_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    require(&for_test_executable(&exe)).unwrap_or_else(|message| panic!("{message}"))
}

/// What the repository holds that the judging commands read.
pub const ROOT_PARTS: [&str; 7] = [
    "Cargo.toml",
    "adapters",
    "captures",
    "docs/CAPABILITIES.md",
    "docs/index.md",
    "fixtures/homes",
    "fixtures/payloads",
];

/// A copy of the repository's adapters, captures, fixtures and matrix, to break.
pub fn copy_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for part in ROOT_PARTS {
        let from = repo().join(part);
        let to = root.path().join(part);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        if from.is_dir() {
            std::fs::create_dir_all(&to).unwrap();
            acc_conformance::sandbox::copy_tree(&from, &to).unwrap();
        } else {
            std::fs::copy(&from, &to).unwrap();
        }
    }
    root
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        assert_eq!(
            self.stdout.lines().count(),
            1,
            "one JSON line: {}",
            self.stdout
        );
        serde_json::from_str(&self.stdout).unwrap()
    }
}

/// `acc-certify <args>` in `cwd`, with `env` added and `GITHUB_ACTIONS` removed.
pub fn certify_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    hook_bin();
    let mut cmd = Command::cargo_bin("acc-certify").unwrap();
    cmd.current_dir(cwd).args(args).env_remove("GITHUB_ACTIONS");
    cmd.env_remove("ACC_HOOK_EXECUTABLE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

pub fn certify(args: &[&str]) -> Run {
    certify_in(&repo(), args, &[])
}

/// The first adapter (by id) with an evidence row, with that row's index and value.
pub fn first_evidence(root: &Path) -> (String, usize, serde_json::Value) {
    let mut ids: Vec<String> = std::fs::read_dir(root.join("adapters"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    for id in ids {
        let file = root.join("adapters").join(&id).join("certification.json");
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let cert: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        if let Some((i, row)) = cert["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .find(|(_, r)| r["result"] == "pass")
        {
            return (id, i, row.clone());
        }
    }
    panic!("the repository holds no passing evidence row to break");
}

/// Replaces `dir` paths in `text` with `<dir>`.
pub fn redact(text: &str, dir: &Path, name: &str) -> String {
    text.replace(&dir.display().to_string(), name)
}
