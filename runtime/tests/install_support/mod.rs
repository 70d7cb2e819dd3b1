//! Shared helpers for the installer tests: a sandbox holding a home copied from
//! `fixtures/homes/`, a data home and a directory of fake clients; an `acc` runner with an
//! explicit environment; a byte-level picture of a directory tree; and a redactor for
//! snapshots.
#![allow(dead_code)]

#[path = "../common/run.rs"]
mod run;

pub use run::Run;

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// Every shipped adapter, with the fixture home that holds its client's files.
pub const ADAPTERS: [&str; 9] = [
    "antigravity",
    "claude-code",
    "codex",
    "copilot",
    "gemini-cli",
    "grok",
    "kimi-code",
    "opencode",
    "qwen-code",
];

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("fixtures")
        .canonicalize()
        .unwrap()
}

pub fn acc_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_acc"))
}

pub fn hook_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_acc-hook"))
}

pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub data: PathBuf,
    /// The only directory on the `PATH` acc sees: fake clients live here.
    pub clients: PathBuf,
    /// A workspace directory outside the home, for hooks to run in.
    pub workspace: PathBuf,
}

impl Sandbox {
    /// An empty home.
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let sandbox = Sandbox {
            home: root.join("home"),
            data: root.join("data"),
            clients: root.join("clients"),
            workspace: root.join("workspace"),
            tmp,
        };
        for dir in [&sandbox.home, &sandbox.clients, &sandbox.workspace] {
            std::fs::create_dir_all(dir).unwrap();
        }
        sandbox
    }

    /// A home holding the union of `fixtures/homes/<name>/` for each name.
    pub fn with_homes(names: &[&str]) -> Sandbox {
        let sandbox = Sandbox::new();
        for name in names {
            copy_tree(&fixtures().join("homes").join(name), &sandbox.home);
        }
        sandbox
    }

    /// A fake client on the sandbox `PATH` whose `--version` prints `output`.
    pub fn fake_client(&self, command: &str, output: &str) {
        let path = self.clients.join(command);
        std::fs::write(&path, format!("#!/bin/sh\necho '{output}'\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// `acc <args>` with only HOME, ACC_DATA_HOME and PATH (the fake clients) set.
    pub fn acc(&self, args: &[&str]) -> Run {
        self.acc_with(&acc_bin(), args)
    }

    pub fn acc_with(&self, binary: &Path, args: &[&str]) -> Run {
        let out = Command::new(binary)
            .args(args)
            .env_clear()
            .env("HOME", &self.home)
            .env("ACC_DATA_HOME", &self.data)
            .env("PATH", &self.clients)
            .current_dir(&self.workspace)
            .output()
            .unwrap();
        Run::from(out)
    }

    /// Replaces sandbox paths with stable names for snapshots.
    pub fn redact(&self, text: &str) -> String {
        let bin = acc_bin().parent().unwrap().to_string_lossy().into_owned();
        text.replace(&self.home.to_string_lossy().into_owned(), "<home>")
            .replace(&self.data.to_string_lossy().into_owned(), "<data>")
            .replace(&self.clients.to_string_lossy().into_owned(), "<clients>")
            .replace(
                &self.workspace.to_string_lossy().into_owned(),
                "<workspace>",
            )
            .replace(&bin, "<bin>")
    }

    pub fn home_tree(&self) -> Tree {
        Tree::of(&self.home)
    }
}

/// Copies `from` into `to`, byte for byte, keeping permissions.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// One entry of a [`Tree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    /// A symbolic link, by where it points (never followed).
    Link(PathBuf),
    File {
        sha256: String,
        /// Identity of the file on disk: a rewrite (even of the same bytes) changes it.
        inode: u64,
        mtime_ns: i128,
    },
}

/// Every file and directory under a root, by relative path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree(pub BTreeMap<PathBuf, Node>);

impl Tree {
    pub fn of(root: &Path) -> Tree {
        let mut map = BTreeMap::new();
        if !root.exists() {
            return Tree(map);
        }
        for entry in walkdir::WalkDir::new(root).min_depth(1).sort_by_file_name() {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(root).unwrap().to_path_buf();
            let node = if entry.file_type().is_dir() {
                Node::Dir
            } else if entry.file_type().is_symlink() {
                Node::Link(std::fs::read_link(entry.path()).unwrap())
            } else {
                let meta = entry.metadata().unwrap();
                Node::File {
                    sha256: hex(&Sha256::digest(std::fs::read(entry.path()).unwrap())),
                    inode: meta.ino(),
                    mtime_ns: i128::from(meta.mtime()) * 1_000_000_000
                        + i128::from(meta.mtime_nsec()),
                }
            };
            map.insert(relative, node);
        }
        Tree(map)
    }

    /// Paths and contents only (what "restored byte for byte" compares).
    pub fn contents(&self) -> BTreeMap<PathBuf, Option<String>> {
        self.0
            .iter()
            .map(|(p, n)| {
                let digest = match n {
                    Node::Dir => None,
                    Node::Link(target) => Some(format!("-> {}", target.display())),
                    Node::File { sha256, .. } => Some(sha256.clone()),
                };
                (p.clone(), digest)
            })
            .collect()
    }

    /// Paths added, removed or whose bytes changed between `self` and `after`.
    pub fn changed(&self, after: &Tree) -> Vec<PathBuf> {
        let before = self.contents();
        let after = after.contents();
        let mut out: Vec<PathBuf> = before
            .keys()
            .chain(after.keys())
            .filter(|p| before.get(*p) != after.get(*p))
            .cloned()
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The one merge (user-owned) file each adapter edits, relative to the home.
pub fn merge_file(adapter: &str) -> Option<&'static str> {
    match adapter {
        "antigravity" => Some(".gemini/config/hooks.json"),
        "claude-code" => Some(".claude/settings.json"),
        "codex" => Some(".codex/hooks.json"),
        "gemini-cli" => Some(".gemini/settings.json"),
        "kimi-code" => Some(".kimi-code/config.toml"),
        "qwen-code" => Some(".qwen/settings.json"),
        _ => None,
    }
}

/// The OpenCode plugin the install with data home `data` wrote under `home`: the one file
/// of OpenCode's global plugin directory named `acc…` whose commands pin `data`.
pub fn opencode_plugin(home: &Path, data: &Path) -> PathBuf {
    let dir = home.join(".config/opencode/plugin");
    let pinned = format!("--data-home \"{}\"", data.display());
    let mine: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("acc"))
        .filter(|p| {
            opencode_plugin_hooks(p)
                .iter()
                .any(|(_, command)| command.contains(&pinned))
        })
        .collect();
    assert_eq!(mine.len(), 1, "{mine:?}");
    mine[0].clone()
}

/// The `(event, command)` pairs in an OpenCode plugin acc wrote, from its `ACC_HOOKS` line.
pub fn opencode_plugin_hooks(plugin: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(plugin).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("const ACC_HOOKS = "))
        .and_then(|l| l.strip_suffix(';'))
        .unwrap_or_else(|| panic!("{}: no ACC_HOOKS line", plugin.display()));
    let hooks: serde_json::Map<String, serde_json::Value> = serde_json::from_str(line).unwrap();
    hooks
        .into_iter()
        .map(|(event, command)| (event, command.as_str().unwrap().to_owned()))
        .collect()
}

/// The skill tree each adapter owns, relative to the home.
pub fn skill_dir(adapter: &str) -> &'static str {
    match adapter {
        "antigravity" => ".gemini/config/skills/acc",
        "claude-code" => ".claude/skills/acc",
        "codex" => ".codex/skills/acc",
        "copilot" => ".copilot/skills/acc",
        "gemini-cli" => ".gemini/skills/acc",
        "grok" => ".grok/skills/acc",
        "kimi-code" => ".kimi-code/skills/acc",
        "opencode" => ".config/opencode/skills/acc",
        "qwen-code" => ".qwen/skills/acc",
        other => panic!("unknown adapter {other}"),
    }
}
