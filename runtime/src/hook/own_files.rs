//! acc's own files, which no agent's tool may write: the data home's `acc` directory (the
//! stores, their WAL, the guard's snapshot and token, heartbeats, conversation pins, the
//! install record and its backups), every file the install record names in a client home,
//! acc's installed programs, the files where a client reads settings that can switch its
//! hooks off, and every `acc.workspace.json` (a person's to write, with `acc config init`).
//!
//! A target is judged by its real path (symlinks followed, as the claim guard does), after
//! `~`, `$HOME` and any other variable the hook's environment defines are expanded the way
//! the agent's shell would (it inherits the client's environment).

use super::targets::canonical_target;
use crate::env::Env;
use std::path::{Path, PathBuf};

/// The workspace configuration's file name.
pub const WORKSPACE_FILE: &str = "acc.workspace.json";

/// The programs acc installs, beside each other.
const PROGRAMS: [&str; 4] = ["acc", "acc-hook", "acc-mcp", "acc-guard"];

/// The largest install record read; a real one is a few KiB.
const MAX_RECORD_BYTES: u64 = 4 << 20;

/// What an own file is, for the refusal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnKind {
    /// Under the data home's `acc` directory.
    State,
    /// A file or tree the install record names (a client's hook configuration, acc's skill).
    Wiring,
    /// One of acc's installed programs.
    Program,
    /// A file where a client reads settings that can switch its hooks off.
    HookControl,
    /// An `acc.workspace.json`.
    WorkspaceConfig,
}

/// A target that reaches one of acc's own files: the path as resolved, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnTarget {
    pub path: PathBuf,
    pub kind: OwnKind,
}

/// acc's own files, as real paths.
#[derive(Debug, Clone)]
pub struct OwnFiles {
    /// `<data home>/acc`, real.
    pub state: PathBuf,
    /// The same, as the data home spells it (before symlinks are followed).
    pub state_spelt: PathBuf,
    wiring: Vec<PathBuf>,
    programs: Vec<PathBuf>,
    hook_control: Vec<&'static str>,
    home: Option<PathBuf>,
}

impl OwnFiles {
    /// acc's own files for the data home `data_home`, with the install record's files, the
    /// programs beside `program` (the running `acc-hook`) and the hook-control endings.
    pub fn new(
        data_home: &Path,
        program: Option<&Path>,
        hook_control: &[&'static str],
        env: &Env,
    ) -> OwnFiles {
        let state_spelt = data_home.join("acc");
        let state = canonical_target(Path::new("/"), &state_spelt.to_string_lossy());
        let wiring = recorded_paths(&state.join(crate::installer::record::RECORD_FILE))
            .into_iter()
            .map(|p| canonical_target(Path::new("/"), &p.to_string_lossy()))
            .collect();
        let programs = program
            .and_then(Path::parent)
            .map(|dir| {
                // Resolved only where they exist (a dangling link names no program), and
                // looked at once: the resolution says both.
                PROGRAMS
                    .iter()
                    .filter_map(|name| crate::paths::canonicalize(&dir.join(name)).ok())
                    .collect()
            })
            .unwrap_or_default();
        OwnFiles {
            state,
            state_spelt,
            wiring,
            programs,
            hook_control: hook_control.to_vec(),
            home: env.get("HOME").map(PathBuf::from),
        }
    }

    /// What a confined command must not write, as existing real paths: the state
    /// directory, the install record's files and acc's programs.
    pub fn confined(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::iter::once(&self.state)
            .chain(&self.wiring)
            .chain(&self.programs)
            .filter(|p| p.symlink_metadata().is_ok())
            .cloned()
            .collect();
        out.sort();
        out.dedup();
        // A path under another one is already read-only with it.
        let all = out.clone();
        out.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
        out
    }

    /// The own file `raw` (as a tool named it, relative to `cwd`) reaches, if any. A raw
    /// path ending in `/**` is written whole (removed, moved away, restored): it reaches
    /// every own file under it.
    pub fn reached(&self, cwd: &Path, raw: &str, env: &Env) -> Option<OwnTarget> {
        let (path, whole) = match raw.strip_suffix("/**") {
            Some("") => ("/", true),
            Some(p) => (p, true),
            None => (raw, false),
        };
        let expanded = expand(path, env);
        let real = canonical_target(cwd, &expanded);
        let hit = |kind: OwnKind| {
            Some(OwnTarget {
                path: real.clone(),
                kind,
            })
        };
        let reaches = |own: &Path| real.starts_with(own) || (whole && own.starts_with(&real));
        if reaches(&self.state) || reaches(&self.state_spelt) {
            return hit(OwnKind::State);
        }
        if self.wiring.iter().any(|w| reaches(w)) {
            return hit(OwnKind::Wiring);
        }
        if self.programs.iter().any(|p| reaches(p)) {
            return hit(OwnKind::Program);
        }
        if self.hook_control.iter().any(|end| ends_with(&real, end)) {
            return hit(OwnKind::HookControl);
        }
        if real.file_name().is_some_and(|n| n == WORKSPACE_FILE) {
            return hit(OwnKind::WorkspaceConfig);
        }
        None
    }

    /// The spellings of the state directory an agent's command could name it by: its real
    /// path, the data home's spelling, and each relative to the home directory (which `~/`,
    /// `$HOME/` and a `cd ~` before a relative path all end in).
    pub fn state_spellings(&self) -> Vec<String> {
        self.spellings([self.state.as_path(), self.state_spelt.as_path()])
    }

    /// The same spellings of the data home itself (the state directory's parent): a command
    /// that names it and then `acc` relative to it (`cd ~/.local/share && rm -rf acc`)
    /// reaches the state as surely as one that names it whole.
    pub fn data_home_spellings(&self) -> Vec<String> {
        let parents = [self.state.parent(), self.state_spelt.parent()];
        self.spellings(parents.into_iter().flatten())
    }

    fn spellings<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in paths {
            let full = p.to_string_lossy().into_owned();
            if let Some(rel) = self
                .home
                .as_deref()
                .and_then(|h| p.strip_prefix(h).ok())
                .filter(|r| r.components().count() >= 2)
            {
                out.push(rel.to_string_lossy().into_owned());
            }
            out.push(full);
        }
        out.sort();
        out.dedup();
        out
    }
}

/// `raw` with a leading `~` or `~/` and every `$NAME` or `${NAME}` that `env` defines
/// replaced by its value, as the agent's shell would; anything else is kept as written.
pub fn expand(raw: &str, env: &Env) -> String {
    let mut out = String::with_capacity(raw.len());
    let rest = match (raw.strip_prefix('~'), env.get("HOME")) {
        (Some(after), Some(home)) if after.is_empty() || after.starts_with('/') => {
            out.push_str(home);
            after
        }
        _ => raw,
    };
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        let tail = &rest[i + 1..];
        let (name, used) = if let Some(inner) = tail.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            (&tail[..end], end)
        };
        match env.get(name).filter(|_| !name.is_empty()) {
            Some(value) => {
                out.push_str(value);
                for _ in 0..tail[..used].chars().count() {
                    chars.next();
                }
            }
            None => out.push(c),
        }
    }
    out
}

/// Whether `path` ends with `ending` (components; an ending that ends in `/` names every
/// entry of that directory).
fn ends_with(path: &Path, ending: &str) -> bool {
    let (dir_only, ending) = match ending.strip_suffix('/') {
        Some(e) => (true, e),
        None => (false, ending),
    };
    let probe = if dir_only { path.parent() } else { Some(path) };
    // Compared from the end without collecting either path: every guarded call checks
    // every client's endings.
    probe.is_some_and(|p| {
        let ending = Path::new(ending);
        p.ends_with(ending) && p.components().count() > ending.components().count()
    })
}

/// Every path the install record at `record` names (artifacts and originals), read
/// leniently: a record acc cannot read protects nothing more (the data home itself, where
/// it lives, is protected anyway).
fn recorded_paths(record: &Path) -> Vec<PathBuf> {
    let Ok(meta) = std::fs::metadata(record) else {
        return Vec::new();
    };
    if meta.len() > MAX_RECORD_BYTES {
        return Vec::new();
    }
    let Ok(bytes) = std::fs::read(record) else {
        return Vec::new();
    };
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for install in doc["installs"].as_array().into_iter().flatten() {
        for key in ["artifacts", "originals"] {
            for a in install[key].as_array().into_iter().flatten() {
                if let Some(p) = a["path"].as_str().filter(|p| Path::new(p).is_absolute()) {
                    out.push(PathBuf::from(p));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        let mut e = Env::new();
        for (k, v) in pairs {
            e.set(k, v);
        }
        e
    }

    #[test]
    fn expansion_follows_the_shell_for_defined_names_only() {
        let e = env(&[("HOME", "/h"), ("D", "/data")]);
        assert_eq!(expand("~/x", &e), "/h/x");
        assert_eq!(expand("~", &e), "/h");
        assert_eq!(expand("~bob/x", &e), "~bob/x");
        assert_eq!(expand("$HOME/.local", &e), "/h/.local");
        assert_eq!(expand("${D}/acc/x", &e), "/data/acc/x");
        assert_eq!(expand("$D/acc", &e), "/data/acc");
        assert_eq!(expand("$UNSET/x", &e), "$UNSET/x");
        assert_eq!(expand("a$", &e), "a$");
        assert_eq!(expand("${D", &e), "${D");
    }

    #[test]
    fn endings_match_whole_components() {
        let p = Path::new("/h/.claude/settings.json");
        assert!(ends_with(p, ".claude/settings.json"));
        assert!(!ends_with(
            Path::new("/h/x.claude/settings.json"),
            ".claude/settings.json"
        ));
        assert!(ends_with(
            Path::new("/h/.grok/hooks/mine.json"),
            ".grok/hooks/"
        ));
        assert!(!ends_with(Path::new("/h/.grok/hooks"), ".grok/hooks/"));
        // The ending alone is not a file under some directory.
        assert!(!ends_with(
            Path::new(".claude/settings.json"),
            ".claude/settings.json"
        ));
        assert!(ends_with(
            Path::new("x/.claude/settings.json"),
            ".claude/settings.json"
        ));
        assert!(!ends_with(
            Path::new("/h/settings.json"),
            ".claude/settings.json"
        ));
    }

    #[test]
    fn state_wiring_and_workspace_files_are_reached_and_neighbours_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let data = root.join("data");
        let home = root.join("home");
        std::fs::create_dir_all(data.join("acc/workspaces/w")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let settings = home.join(".claude/settings.json");
        std::fs::write(&settings, "{}").unwrap();
        std::fs::write(
            data.join("acc/installs.json"),
            serde_json::json!({"schemaVersion": 1, "installs": [{"artifacts": [{"path": settings}]}]})
                .to_string(),
        )
        .unwrap();
        let e = env(&[("HOME", home.to_str().unwrap())]);
        let own = OwnFiles::new(&data, None, &[".codex/config.toml"], &e);
        let kind = |cwd: &Path, raw: &str| own.reached(cwd, raw, &e).map(|t| t.kind);
        assert_eq!(
            kind(&root, "data/acc/workspaces/w/acc.db"),
            Some(OwnKind::State)
        );
        assert_eq!(kind(&root, "data/**"), Some(OwnKind::State));
        assert_eq!(kind(&root, "data/other"), None);
        assert_eq!(
            kind(&root, "~/.claude/settings.json"),
            Some(OwnKind::Wiring)
        );
        assert_eq!(kind(&home, ".claude/**"), Some(OwnKind::Wiring));
        assert_eq!(kind(&home, ".claude/other.json"), None);
        assert_eq!(
            kind(&root, "p/.codex/config.toml"),
            Some(OwnKind::HookControl)
        );
        assert_eq!(
            kind(&root, "p/acc.workspace.json"),
            Some(OwnKind::WorkspaceConfig)
        );
        assert_eq!(kind(&root, "p/acc.workspace.json.bak"), None);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(data.join("acc"), root.join("link")).unwrap();
            assert_eq!(kind(&root, "link/x"), Some(OwnKind::State));
        }
    }

    /// The programs beside the running one are guarded as their real paths, whether one
    /// call resolves them or many; a name that leads nowhere guards nothing.
    #[cfg(unix)]
    #[test]
    fn programs_beside_the_running_one_are_reached_through_their_links() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let bin = root.join("bin");
        let real = root.join("real");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(bin.join("acc-hook"), "").unwrap();
        std::fs::write(real.join("acc"), "").unwrap();
        std::os::unix::fs::symlink(real.join("acc"), bin.join("acc")).unwrap();
        // Dangling: writing through it creates a file no install put there.
        std::os::unix::fs::symlink(root.join("gone"), bin.join("acc-mcp")).unwrap();
        let e = env(&[]);
        for scoped in [false, true] {
            let _scope = scoped.then(crate::paths::remember_real_paths);
            let own = OwnFiles::new(&root.join("data"), Some(&bin.join("acc-hook")), &[], &e);
            let kind = |raw: &str| own.reached(&root, raw, &e).map(|t| t.kind);
            assert_eq!(kind("bin/acc-hook"), Some(OwnKind::Program));
            assert_eq!(kind("real/acc"), Some(OwnKind::Program), "scoped: {scoped}");
            assert_eq!(kind("bin/acc"), Some(OwnKind::Program));
            assert_eq!(kind("real/**"), Some(OwnKind::Program));
            assert_eq!(kind("gone"), None);
            assert_eq!(kind("bin/acc-mcp"), None);
            assert_eq!(kind("bin/acc-guard"), None);
            assert_eq!(
                own.confined(),
                [bin.join("acc-hook"), real.join("acc")],
                "scoped: {scoped}"
            );
        }
    }
}
