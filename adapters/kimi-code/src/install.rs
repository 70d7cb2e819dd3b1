//! Where Kimi Code reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Kimi Code keeps its settings in `<kimi home>/config.toml`, the kimi home being
//! `$KIMI_CODE_HOME` when set and `~/.kimi-code` otherwise. Hooks are `[[hooks]]` tables
//! with exactly `event`, `command`, an optional `matcher` and `timeout` (seconds, at most
//! 600); any other key is rejected by the client. acc appends its own `[[hooks]]` tables
//! and later removes exactly them, found by the TOML parser (tables this install wrote, as
//! [`HookOwner`] decides: another acc install's and a user's own `acc-hook` stay), so the rest of the user's TOML (comments, line endings, text in strings that looks like
//! a table) is never rewritten; a user's own `[[hooks]]` tables stay and acc's join the
//! same array. User skills are read from `<kimi home>/skills/<name>/SKILL.md`.
//!
//! Observed with Kimi Code 2.1.0 (npm `@moonshot-ai/kimi-code`, run on Node 24 against a
//! local model double): a config holding a user's `[[hooks]]`, other tables and acc's block
//! loads, acc's SessionStart hook runs, and the skill's description reaches the model.
//! `SessionHeartbeat` (every 60 s) and `SessionEnd` are among the client's 20 hook events;
//! neither fires in a one-prompt `-p` run.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};
use acc_sdk::hook_command::runs_acc_hook;
use acc_sdk::hook_config::{self, FoundHandler, HookHandler};
use acc_sdk::hook_owner::HookOwner;
use acc_sdk::install::{ArtifactKind, ChangeAction, Diagnostic, FileChange, InstallContext};
use acc_sdk::install_files::{read_optional, write_if_changed};
use acc_sdk::install_layout::{HookFileClient, HookFileLayout, HookSpec, HookWiring};
use acc_sdk::toml_tables::{self, FoundEntry};
use serde_json::{Map, Value};

const TIMEOUT_SECONDS: u64 = 10;
const WRITE_TOOLS: &str = "Write|Edit|Bash";
/// The array of tables Kimi Code reads hooks from.
const HOOKS: &str = "hooks";
/// Said on the header of every table acc writes, so a person reading the file knows.
const HEADER_COMMENT: &str =
    "acc (agents-can-communicate); `acc uninstall --adapter kimi-code` removes it";

/// acc's `[[hooks]]` tables in `config.toml`, and the skill tree beside it.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "kimi";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("UserPromptSubmit", TIMEOUT_SECONDS),
        HookSpec::new("SessionHeartbeat", TIMEOUT_SECONDS),
        HookSpec::new("PreToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        // After a shell call: did it change a peer's claimed files anyway?
        HookSpec::new("PostToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &TomlHookTables;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        let kimi = ctx.dir_from_env("KIMI_CODE_HOME", ".kimi-code");
        HookFileLayout::in_dir(&kimi, "config.toml")
    }
}

/// acc's `[[hooks]]` tables in the user's `config.toml`, found by the TOML parser and
/// edited at their own bytes; the rest of the file is never rewritten.
#[derive(Debug, Clone, Copy)]
struct TomlHookTables;

impl HookWiring for TomlHookTables {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Merge
    }

    fn check(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<(), AdapterError> {
        let text = read_config(path)?.unwrap_or_default();
        merged(path, &text, handlers, owner).map(drop)
    }

    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError> {
        let text = read_config(path)?.unwrap_or_default();
        let out = merged(path, &text, handlers, owner)?;
        Ok(FileChange {
            action: write_if_changed(path, out.as_bytes())?,
            path: path.to_path_buf(),
        })
    }

    /// Takes acc's tables out of `config.toml`; the rest of the file is untouched.
    fn uninstall(
        &self,
        path: &Path,
        _keep: &[PathBuf],
        owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError> {
        let Some(text) = read_config(path)? else {
            return Ok(None);
        };
        let out = toml_tables::remove(&text, path, HOOKS, |e| is_ours(e, path, owner))?;
        let action = write_if_changed(path, out.as_bytes())?;
        Ok((action != ChangeAction::Unchanged).then(|| FileChange {
            path: path.to_path_buf(),
            action,
        }))
    }

    fn diagnose(
        &self,
        path: &Path,
        expected: &[HookHandler],
        owner: &HookOwner,
    ) -> Vec<Diagnostic> {
        hooks_diagnostics(path, expected, owner)
    }
}

/// A table that looks like acc's: its command runs an `acc-hook`, whoever wrote it.
fn looks_accs(entry: &FoundEntry) -> bool {
    field(entry, "command").is_some_and(runs_acc_hook)
}

/// A table this install wrote: its event, matcher and command are this install's.
fn is_ours(entry: &FoundEntry, path: &Path, owner: &HookOwner) -> bool {
    match (field(entry, "event"), field(entry, "command")) {
        (Some(event), Some(command)) => owner.owns(path, event, field(entry, "matcher"), command),
        _ => false,
    }
}

fn field<'a>(entry: &'a FoundEntry, key: &str) -> Option<&'a str> {
    entry.fields.get(key).and_then(Value::as_str)
}

/// One `[[hooks]]` table's keys, in the order Kimi Code documents them.
fn table_fields(handler: &HookHandler) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("event".to_owned(), Value::from(handler.event.clone()));
    if let Some(matcher) = &handler.matcher {
        fields.insert("matcher".to_owned(), Value::from(matcher.clone()));
    }
    fields.insert("command".to_owned(), Value::from(handler.command.clone()));
    fields.insert("timeout".to_owned(), Value::from(handler.timeout));
    fields
}

/// The user's config as text, `None` when absent; refused when it is not UTF-8.
fn read_config(path: &Path) -> Result<Option<String>, AdapterError> {
    let Some(bytes) = read_optional(path)? else {
        return Ok(None);
    };
    String::from_utf8(bytes).map(Some).map_err(|_| {
        AdapterError::new(
            AdapterErrorKind::MalformedUserFile,
            format!(
                "{}:1:1: not valid TOML: the file is not UTF-8 text",
                path.display()
            ),
        )
        .at(path)
    })
}

/// The config with exactly acc's tables for `handlers`: unchanged when they are already
/// there as install writes them, else with any older acc tables taken out and the new ones
/// appended. Refused (naming file and line) when that cannot be done safely.
fn merged(
    path: &Path,
    text: &str,
    handlers: &[HookHandler],
    owner: &HookOwner,
) -> Result<String, AdapterError> {
    let wanted: Vec<Map<String, Value>> = handlers.iter().map(table_fields).collect();
    let current: Vec<Map<String, Value>> = toml_tables::entries(text, path, HOOKS)?
        .into_iter()
        .filter(|e| is_ours(e, path, owner))
        .map(|e| e.fields)
        .collect();
    if current == wanted {
        return Ok(text.to_owned());
    }
    let without = toml_tables::remove(text, path, HOOKS, |e| is_ours(e, path, owner))?;
    toml_tables::append(&without, path, HOOKS, &wanted, HEADER_COMMENT)
}

fn hooks_diagnostics(path: &Path, expected: &[HookHandler], owner: &HookOwner) -> Vec<Diagnostic> {
    let text = match read_config(path) {
        Ok(Some(text)) => text,
        Ok(None) => {
            return vec![hook_config::error(format!(
                "{} does not exist, so no acc hook runs",
                path.display()
            ))];
        }
        Err(e) => return vec![hook_config::error(e.message)],
    };
    match toml_tables::entries(&text, path, HOOKS) {
        Ok(entries) => {
            hook_config::diagnose_handlers(path, &found_handlers(&entries), expected, owner)
        }
        Err(e) => vec![hook_config::error(e.message)],
    }
}

/// The `[[hooks]]` tables that look like acc's, as handlers.
fn found_handlers(entries: &[FoundEntry]) -> Vec<FoundHandler> {
    let text = |e: &FoundEntry, key: &str| field(e, key).map(str::to_owned);
    entries
        .iter()
        .filter(|e| looks_accs(e))
        .enumerate()
        .filter_map(|(i, e)| {
            Some(FoundHandler {
                event: text(e, "event")?,
                group: i,
                index: 0,
                command: text(e, "command")?,
                matcher: text(e, "matcher"),
                timeout: e.fields.get("timeout").and_then(Value::as_u64),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::DiagnosticLevel;
    use acc_sdk::install_layout::{doctor, install, plan, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn kimi_code_home_moves_everything() {
        assert_eq!(
            layout_paths(&Install, &[("KIMI_CODE_HOME", "/k")]),
            ["/k/config.toml", "/k/skills/acc"]
        );
        assert_eq!(
            layout_paths(&Install, &[]),
            [
                "/home/u/.kimi-code/config.toml",
                "/home/u/.kimi-code/skills/acc"
            ]
        );
    }

    fn acc_tables(config: &Path) -> Vec<Value> {
        let text = std::fs::read_to_string(config).unwrap();
        let value = acc_sdk::install_files::parse_toml(&text, config).unwrap();
        value["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["command"].as_str().is_some_and(runs_acc_hook))
            .cloned()
            .collect()
    }

    #[test]
    fn the_tables_hold_only_keys_kimi_accepts() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&Install, &ctx).unwrap();
        let hooks = acc_tables(&dir.path().join(".kimi-code/config.toml"));
        assert_eq!(hooks.len(), 7);
        for hook in &hooks {
            for key in hook.as_object().unwrap().keys() {
                assert!(
                    ["event", "command", "matcher", "timeout"].contains(&key.as_str()),
                    "{key}"
                );
            }
            assert_eq!(hook["timeout"], 10);
        }
        assert_eq!(hooks[3]["event"], "PreToolUse");
        assert_eq!(hooks[3]["matcher"], WRITE_TOOLS);
        assert_eq!(
            hooks[0]["command"],
            "\"/opt/acc/bin/acc-hook\" kimi-code SessionStart"
        );
    }

    #[test]
    fn only_accs_tables_change_and_uninstall_gives_the_file_back() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".kimi-code/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let original = "# my settings\r\nmodel = \"k2\"  # pinned\r\n[ui]\r\ntheme = \"dark\"";
        std::fs::write(&config, original).unwrap();
        install(&Install, &ctx).unwrap();
        let installed = std::fs::read_to_string(&config).unwrap();
        assert!(installed.starts_with(original));
        assert!(installed.contains("\r\n[[hooks]] # acc"));
        assert!(
            doctor(&Install, &ctx)
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Ok && d.message.contains("7 acc hook(s)"))
        );
        // A second install finds its tables as they should be and writes nothing.
        let again = install(&Install, &ctx).unwrap();
        assert!(
            again
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Unchanged)
        );
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    }

    /// Issue 13: acc's old marker lines inside a user's multi-line string were taken for
    /// acc's block, so install rewrote the string (and Kimi saw no hook) and uninstall cut
    /// the user's lines out of it.
    #[test]
    fn marker_lines_inside_a_string_are_the_users_text() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".kimi-code/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let notes = "# >>> agents-can-communicate (managed; edits here are overwritten)\n[[hooks]]\nevent = \"Stop\"\n# <<< agents-can-communicate\n";
        let original = format!("model = \"k2\"\nnotes = \"\"\"\n{notes}\"\"\"\n");
        std::fs::write(&config, &original).unwrap();
        install(&Install, &ctx).unwrap();
        let installed = std::fs::read_to_string(&config).unwrap();
        assert!(installed.starts_with(&original), "{installed}");
        let table = acc_sdk::install_files::parse_toml(&installed, &config).unwrap();
        assert_eq!(table["notes"].as_str(), Some(notes));
        assert_eq!(
            acc_tables(&config).len(),
            7,
            "Kimi Code reads every acc hook"
        );
        // The user edits the file, so uninstall removes acc's tables structurally.
        std::fs::write(&config, format!("x = 1\n{installed}")).unwrap();
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            format!("x = 1\n{original}")
        );
    }

    #[test]
    fn only_this_installs_tables_are_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".kimi-code/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let original = "a = 1\n[[hooks]]\nevent = \"SessionStart\"\ncommand = \"/old/acc-hook kimi-code SessionStart\"\ntimeout = 10\n[[hooks]]\nevent = \"Stop\"\ncommand = \"/home/u/mine\"\n";
        std::fs::write(&config, original).unwrap();
        // No install record names `/old/acc-hook`: it is not this install's, and stays.
        install(&Install, &ctx).unwrap();
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert_eq!(acc_tables(&config).len(), 8);
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
        // The record says this install wrote it (an older path of acc): replaced, not doubled.
        ctx.recorded_hooks = vec![acc_sdk::hook_owner::RecordedHook {
            path: config.clone(),
            event: "SessionStart".to_owned(),
            matcher: None,
            command: "/old/acc-hook kimi-code SessionStart".to_owned(),
        }];
        install(&Install, &ctx).unwrap();
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(!text.contains("/old/acc-hook"), "{text}");
        assert!(
            text.starts_with("a = 1\n[[hooks]]\nevent = \"Stop\"\ncommand = \"/home/u/mine\"\n")
        );
        assert_eq!(acc_tables(&config).len(), 7);
    }

    #[test]
    fn incompatible_hooks_are_refused_before_writing_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".kimi-code/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::write(&config, "a = 1\nb = = 2\n").unwrap();
        let err = plan(&Install, &ctx).unwrap_err();
        assert_eq!(err.kind, AdapterErrorKind::MalformedUserFile);
        assert!(
            err.message.starts_with(&format!("{}:2:", config.display())),
            "{}",
            err.message
        );
        let hooks_as_value = "a = 1\nhooks = \"nope\"\n";
        std::fs::write(&config, hooks_as_value).unwrap();
        let err = plan(&Install, &ctx).unwrap_err();
        assert_eq!(err.kind, AdapterErrorKind::Conflict);
        assert!(
            err.message.starts_with(&format!(
                "{}:2:1: `hooks` is defined here as a value",
                config.display()
            )),
            "{}",
            err.message
        );
        assert!(install(&Install, &ctx).is_err());
        assert_eq!(std::fs::read_to_string(&config).unwrap(), hooks_as_value);
        assert!(!dir.path().join(".kimi-code/skills").exists());
    }
}
