//! Where Antigravity reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Antigravity CLI (and the Antigravity desktop app) read hooks from
//! `~/.gemini/config/hooks.json`: named hook sets, each mapping an event to a list of
//! handlers, `{"<set>": {"<Event>": [{"type": "command", "command": "...", "timeout": 10}]}}`.
//! acc owns the set named `acc` and nothing else in the file. Its `PreInvocation` and
//! `PostInvocation` payloads are byte-identical, so each command carries its event name as
//! its last argument, which is how the hook learns which event ran. The skill goes to
//! `~/.gemini/config/skills/acc/`.
//!
//! Not verified against a real Antigravity: neither the CLI (`agy`) nor the desktop app
//! could be obtained from a registry here. The layout follows the reference
//! implementation's notes; acc never writes the workspace variant (`.agents/hooks.json`),
//! because nothing is written inside a repository.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};
use acc_sdk::hook_command::{HookCommand, runs_acc_hook};
use acc_sdk::hook_config::{self, FoundHandler, HookHandler};
use acc_sdk::install::{ArtifactKind, ChangeAction, Diagnostic, FileChange, InstallContext};
use acc_sdk::install_files::read_json;
use acc_sdk::install_layout::{HookFileClient, HookFileLayout, HookSpec, HookWiring};
use serde_json::{Map, Value, json};

const TIMEOUT_SECONDS: u64 = 10;
/// The hook set acc owns in `hooks.json`.
const SET: &str = "acc";

/// acc's hook set in `~/.gemini/config/hooks.json`, and the skill tree beside it.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "agy";
    /// The events that load in Antigravity and that acc uses.
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("PreInvocation", TIMEOUT_SECONDS),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &NamedHookSet;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(&ctx.home.join(".gemini").join("config"), "hooks.json")
    }
}

/// The named hook set `acc` in a `hooks.json` whose other sets are the user's.
#[derive(Debug, Clone, Copy)]
struct NamedHookSet;

impl HookWiring for NamedHookSet {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Merge
    }

    fn check(&self, path: &Path, _handlers: &[HookHandler]) -> Result<(), AdapterError> {
        check_set(path, &read_json(path)?.value)
    }

    fn install(&self, path: &Path, handlers: &[HookHandler]) -> Result<FileChange, AdapterError> {
        let doc = read_json(path)?;
        check_set(path, &doc.value)?;
        let mut value = doc.value.clone();
        value
            .as_object_mut()
            .expect("read_json yields an object")
            .insert(SET.to_owned(), set(handlers));
        Ok(FileChange {
            action: doc.save(&value)?,
            path: path.to_path_buf(),
        })
    }

    /// Removes the `acc` set only when acc wrote it; a set of that name that is not acc's
    /// stays and is reported kept.
    fn uninstall(
        &self,
        path: &Path,
        _keep: &[PathBuf],
    ) -> Result<Option<FileChange>, AdapterError> {
        let doc = read_json(path)?;
        if !doc.existed || doc.value.get(SET).is_none() {
            return Ok(None);
        }
        if check_set(path, &doc.value).is_err() {
            return Ok(Some(FileChange {
                path: path.to_path_buf(),
                action: ChangeAction::Kept,
            }));
        }
        let mut value = doc.value.clone();
        value
            .as_object_mut()
            .expect("read_json yields an object")
            .shift_remove(SET);
        Ok(Some(FileChange {
            action: doc.save(&value)?,
            path: path.to_path_buf(),
        }))
    }

    fn diagnose(&self, path: &Path, expected: &[HookHandler]) -> Vec<Diagnostic> {
        let doc = match read_json(path) {
            Ok(doc) if doc.existed => doc,
            Ok(_) => {
                return vec![hook_config::error(format!(
                    "{} does not exist, so no acc hook runs",
                    path.display()
                ))];
            }
            Err(e) => return vec![hook_config::error(e.message)],
        };
        let found: Vec<FoundHandler> = doc
            .value
            .get(SET)
            .map(commands)
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .filter_map(|(i, (event, command))| {
                Some(FoundHandler {
                    event,
                    group: i,
                    index: 0,
                    command: command.filter(|c| runs_acc_hook(c))?.to_owned(),
                    matcher: None,
                    timeout: None,
                })
            })
            .collect();
        let mut diagnostics = hook_config::diagnose_handlers(path, &found, expected);
        diagnostics.extend(found.iter().filter_map(event_argument_mismatch));
        diagnostics
    }
}

/// acc's hook set.
fn set(handlers: &[HookHandler]) -> Value {
    let mut events = Map::new();
    for h in handlers {
        events.insert(
            h.event.clone(),
            json!([{"type": "command", "command": h.command, "timeout": h.timeout}]),
        );
    }
    Value::Object(events)
}

/// Every handler command in a hook set, whatever its shape.
fn commands(set: &Value) -> Vec<(String, Option<&str>)> {
    let mut out = Vec::new();
    if let Some(events) = set.as_object() {
        for (event, handlers) in events {
            for handler in handlers.as_array().into_iter().flatten() {
                out.push((
                    event.clone(),
                    handler.get("command").and_then(Value::as_str),
                ));
            }
        }
    }
    out
}

/// Refuses a set named `acc` that acc did not write.
fn check_set(path: &Path, doc: &Value) -> Result<(), AdapterError> {
    let Some(existing) = doc.get(SET) else {
        return Ok(());
    };
    let cmds = commands(existing);
    if !cmds.is_empty() && cmds.iter().all(|(_, c)| c.is_some_and(runs_acc_hook)) {
        return Ok(());
    }
    Err(AdapterError::new(
        AdapterErrorKind::Conflict,
        format!(
            "{}: the hook set `{SET}` exists and was not written by acc; rename it and run the command again",
            path.display()
        ),
    )
    .at(path))
}

/// The event argument is the only way the hook learns its event here, so a command filed
/// under one event that names another is an error.
fn event_argument_mismatch(found: &FoundHandler) -> Option<Diagnostic> {
    let parsed = HookCommand::parse(&found.command)?;
    (parsed.event != found.event).then(|| {
        hook_config::error(format!(
            "the {} hook runs `{}`, which tells acc it is {}",
            found.event, found.command, parsed.event
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::DiagnosticLevel;
    use acc_sdk::install_layout::{doctor, install, plan, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context};

    fn ctx(home: &Path) -> InstallContext {
        context(home, &[])
    }

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn each_command_names_its_event_last() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        install(&Install, &ctx).unwrap();
        let written: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(".gemini/config/hooks.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            written,
            json!({"acc": {
                "SessionStart": [{"type": "command", "command": "\"/opt/acc/bin/acc-hook\" antigravity SessionStart", "timeout": 10}],
                "PreInvocation": [{"type": "command", "command": "\"/opt/acc/bin/acc-hook\" antigravity PreInvocation", "timeout": 10}],
                "Stop": [{"type": "command", "command": "\"/opt/acc/bin/acc-hook\" antigravity Stop", "timeout": 10}]
            }})
        );
    }

    #[test]
    fn only_the_acc_set_is_touched_and_a_foreign_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let path = dir.path().join(".gemini/config/hooks.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let original = "{\n\t\"mine\": {\n\t\t\"Stop\": [\n\t\t\t{\n\t\t\t\t\"type\": \"command\",\n\t\t\t\t\"command\": \"say done\"\n\t\t\t}\n\t\t]\n\t}\n}";
        std::fs::write(&path, original).unwrap();
        install(&Install, &ctx).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            doc.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["mine", "acc"]
        );
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        std::fs::write(
            &path,
            r#"{"acc": {"Stop": [{"type": "command", "command": "say hi"}]}}"#,
        )
        .unwrap();
        assert_eq!(
            plan(&Install, &ctx).unwrap_err().kind,
            AdapterErrorKind::Conflict
        );
        let report = uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(report.changes[0].action, ChangeAction::Kept);
    }

    #[test]
    fn doctor_catches_an_event_argument_that_lies() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        let path = dir.path().join(".gemini/config/hooks.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"acc": {"Stop": [{"type": "command", "command": "/opt/acc/bin/acc-hook antigravity SessionStart"}]}}"#,
        )
        .unwrap();
        let report = doctor(&Install, &ctx);
        assert!(!report.ok);
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Error
                    && d.message.contains("which tells acc it is SessionStart"))
        );
    }
}
