//! Where Copilot CLI reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Copilot CLI 1.0.102 loads every `*.json` in its user hooks directory,
//! `<copilot home>/hooks/`, where the copilot home is `$COPILOT_HOME` when set and
//! `~/.copilot` otherwise (observed: a file there ran for a session in a workspace with no
//! hooks of its own). Each file is `{"version": 1, "hooks": {"<event>": [{"type":
//! "command", "bash": "...", "timeoutSec": 10}]}}`, one flat entry per handler, an optional
//! `matcher` regex on the entry. acc owns `hooks/acc.json` whole, so no file of the user's
//! is edited: their `settings.json`, their own hook files and a repository's
//! `.github/hooks/` keep every byte. Skills are read from `<copilot home>/skills/<name>/`.
//! acc never writes a repository's `.github/hooks/`: nothing goes inside a repository.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};
use acc_sdk::hook_command::runs_acc_hook;
use acc_sdk::hook_config::{self, HookHandler};
use acc_sdk::hook_owner::HookOwner;
use acc_sdk::install::{ArtifactKind, ChangeAction, Diagnostic, FileChange, InstallContext};
use acc_sdk::install_files::{read_json, uninstall_file_tree, write_if_changed};
use acc_sdk::install_layout::{HookFileClient, HookFileLayout, HookSpec, HookWiring};
use acc_sdk::json_style::{JsonStyle, render_json_document};
use serde_json::{Map, Value, json};

const TIMEOUT_SECONDS: u64 = 10;
/// Copilot CLI's file-writing and shell tools (`matcher` is anchored as `^(?:…)$`).
const WRITE_TOOLS: &str = "create|edit|str_replace_editor|apply_patch|bash|write_bash";
const HOOK_FILE: &str = "acc.json";
/// The only hook file format version Copilot CLI reads.
const FORMAT_VERSION: u64 = 1;

/// `hooks/acc.json` and the skill tree, both acc's own.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "copilot";
    /// No `sessionStart`: Copilot CLI 1.0.102 runs it alongside `userPromptSubmitted`
    /// without waiting for it, and two acc hooks opening one conversation at once made two
    /// sessions (recorded: the solo control saw the second as a peer). The first prompt's
    /// `userPromptSubmitted` opens the session instead.
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("userPromptSubmitted", TIMEOUT_SECONDS),
        HookSpec::new("preToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        // After a shell call: did it change a peer's claimed files anyway? Also the
        // safe point where context reaches the model with the tool's result.
        HookSpec::new("postToolUse", TIMEOUT_SECONDS),
        HookSpec::new("agentStop", TIMEOUT_SECONDS),
        HookSpec::new("sessionEnd", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &OwnedCopilotHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(&copilot_home(ctx), Path::new("hooks").join(HOOK_FILE))
    }
}

fn copilot_home(ctx: &InstallContext) -> PathBuf {
    ctx.dir_from_env("COPILOT_HOME", ".copilot")
}

/// A Copilot-shaped hook file acc owns whole. Another acc install (another data home) may
/// share it: its entries stay through this install's install and uninstall, and the file
/// goes with the last of them. A file there holding anything that is not acc's is refused
/// on install and left (reported `Kept`) on uninstall.
#[derive(Debug, Clone, Copy)]
struct OwnedCopilotHooks;

impl HookWiring for OwnedCopilotHooks {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Tree
    }

    fn check(&self, path: &Path, _h: &[HookHandler], _o: &HookOwner) -> Result<(), AdapterError> {
        owned_document(path).map(|_| ())
    }

    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError> {
        let existing = owned_document(path)?.unwrap_or_else(|| json!({}));
        let merged = hook_config::merge(
            &to_groups(&existing),
            handlers,
            &hook_config::owned_in(owner, path),
        )
        .map_err(|e| e.in_file(path))?;
        Ok(FileChange {
            action: write(path, &from_groups(&merged))?,
            path: path.to_path_buf(),
        })
    }

    fn uninstall(
        &self,
        path: &Path,
        keep: &[PathBuf],
        owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError> {
        let Ok(Some(doc)) = owned_document(path) else {
            return Ok(path.exists().then(|| FileChange {
                path: path.to_path_buf(),
                action: ChangeAction::Kept,
            }));
        };
        if keep.iter().any(|k| k == path) {
            return uninstall_file_tree(path, keep);
        }
        let groups = to_groups(&doc);
        let others = hook_config::find_all(&groups)
            .iter()
            .any(|f| !owner.owns(path, &f.event, f.matcher.as_deref(), &f.command));
        if !others {
            return uninstall_file_tree(path, keep);
        }
        let Some(stripped) = hook_config::remove(&groups, &hook_config::owned_in(owner, path))
            .map_err(|e| e.in_file(path))?
        else {
            return Ok(None);
        };
        Ok(Some(FileChange {
            action: write(path, &from_groups(&stripped))?,
            path: path.to_path_buf(),
        }))
    }

    fn diagnose(
        &self,
        path: &Path,
        expected: &[HookHandler],
        owner: &HookOwner,
    ) -> Vec<Diagnostic> {
        match read_json(path) {
            Ok(doc) if doc.existed => hook_config::diagnose_handlers(
                path,
                &hook_config::find_all(&to_groups(&doc.value)),
                expected,
                owner,
            ),
            Ok(_) => vec![hook_config::error(format!(
                "{} does not exist, so no acc hook runs",
                path.display()
            ))],
            Err(e) => vec![hook_config::error(e.message)],
        }
    }
}

fn write(path: &Path, doc: &Value) -> Result<ChangeAction, AdapterError> {
    write_if_changed(path, &render_json_document(doc, &JsonStyle::default()))
}

/// The file's document when it is absent (`None`) or acc's: version 1, and every entry a
/// command running an `acc-hook`. Anything else is the user's, and refused.
fn owned_document(path: &Path) -> Result<Option<Value>, AdapterError> {
    let foreign = || {
        AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{} exists and was not written by acc; move it aside and run the command again",
                path.display()
            ),
        )
        .at(path)
    };
    let doc = read_json(path).map_err(|_| foreign())?;
    if !doc.existed {
        return Ok(None);
    }
    let version_ok = doc.value.get("version").and_then(Value::as_u64) == Some(FORMAT_VERSION);
    let entries: Vec<&Value> = doc
        .value
        .get(hook_config::HOOKS_KEY)
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .collect();
    let all_acc = !entries.is_empty()
        && entries
            .iter()
            .all(|e| entry_command(e).is_some_and(runs_acc_hook));
    if version_ok && all_acc {
        Ok(Some(doc.value))
    } else {
        Err(foreign())
    }
}

fn entry_command(entry: &Value) -> Option<&str> {
    entry
        .get("bash")
        .or_else(|| entry.get("command"))
        .and_then(Value::as_str)
}

/// Copilot's flat entries as the Claude-shaped groups [`hook_config`] reads and writes.
fn to_groups(doc: &Value) -> Value {
    let mut events = Map::new();
    for (event, entries) in doc
        .get(hook_config::HOOKS_KEY)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let groups = entries
            .as_array()
            .into_iter()
            .flatten()
            .map(|entry| {
                let mut group = Map::new();
                if let Some(m) = entry.get("matcher") {
                    group.insert("matcher".into(), m.clone());
                }
                let mut handler = Map::new();
                handler.insert("type".into(), json!("command"));
                if let Some(c) = entry_command(entry) {
                    handler.insert("command".into(), json!(c));
                }
                if let Some(t) = entry.get("timeoutSec") {
                    handler.insert("timeout".into(), t.clone());
                }
                group.insert(hook_config::HOOKS_KEY.into(), json!([handler]));
                Value::Object(group)
            })
            .collect();
        events.insert(event.clone(), Value::Array(groups));
    }
    json!({ hook_config::HOOKS_KEY: events })
}

/// The groups back as Copilot's file: one flat entry per handler.
fn from_groups(groups: &Value) -> Value {
    let mut events = Map::new();
    for (event, list) in groups
        .get(hook_config::HOOKS_KEY)
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let mut entries = Vec::new();
        for group in list.as_array().into_iter().flatten() {
            for handler in group
                .get(hook_config::HOOKS_KEY)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let mut entry = Map::new();
                entry.insert("type".into(), json!("command"));
                if let Some(m) = group.get("matcher") {
                    entry.insert("matcher".into(), m.clone());
                }
                if let Some(c) = handler.get("command") {
                    entry.insert("bash".into(), c.clone());
                }
                if let Some(t) = handler.get("timeout") {
                    entry.insert("timeoutSec".into(), t.clone());
                }
                entries.push(Value::Object(entry));
            }
        }
        if !entries.is_empty() {
            events.insert(event.clone(), Value::Array(entries));
        }
    }
    json!({"version": FORMAT_VERSION, hook_config::HOOKS_KEY: events})
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install_layout::{install, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn copilot_home_holds_the_hook_file_and_the_skill() {
        assert_eq!(
            layout_paths(&Install, &[]),
            [
                "/home/u/.copilot/hooks/acc.json",
                "/home/u/.copilot/skills/acc"
            ]
        );
        assert_eq!(
            layout_paths(&Install, &[("COPILOT_HOME", "/iso")]),
            ["/iso/hooks/acc.json", "/iso/skills/acc"]
        );
    }

    #[test]
    fn the_file_is_copilot_shaped_with_the_event_as_the_last_argument() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&Install, &ctx).unwrap();
        let path = dir.path().join(".copilot/hooks/acc.json");
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(file["version"], json!(1));
        assert_eq!(
            file["hooks"]["preToolUse"],
            json!([{
                "type": "command",
                "matcher": WRITE_TOOLS,
                "bash": "\"/opt/acc/bin/acc-hook\" copilot preToolUse",
                "timeoutSec": 10
            }])
        );
        let events: Vec<&String> = file["hooks"].as_object().unwrap().keys().collect();
        assert_eq!(
            events,
            [
                "userPromptSubmitted",
                "preToolUse",
                "postToolUse",
                "agentStop",
                "sessionEnd"
            ]
        );
        let once = std::fs::read(&path).unwrap();
        install(&Install, &ctx).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), once);
        uninstall(&Install, &ctx, &[]).unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn a_user_file_of_the_same_name_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".copilot/hooks/acc.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mine = br#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./mine.sh"}]}}"#;
        std::fs::write(&path, mine).unwrap();
        let ctx = ctx(dir.path(), &[]);
        assert!(install(&Install, &ctx).is_err());
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), mine);
    }
}
