//! Where Antigravity reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Antigravity CLI (and the Antigravity desktop app) read hooks from
//! `~/.gemini/config/hooks.json`: named hook sets, each mapping an event to a list of
//! handlers, `{"<set>": {"<Event>": [{"type": "command", "command": "...", "timeout": 10}]}}`.
//! acc writes into the set named `acc` and nothing else in the file. Another acc install
//! (another data home) shares that set: install and uninstall replace and remove only this
//! install's handlers in it ([`HookOwner`]), and the set goes with the last of them. Its `PreInvocation` and
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
use acc_sdk::hook_owner::HookOwner;
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

    fn check(
        &self,
        path: &Path,
        _handlers: &[HookHandler],
        _owner: &HookOwner,
    ) -> Result<(), AdapterError> {
        check_set(path, &read_json(path)?.value)
    }

    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError> {
        let doc = read_json(path)?;
        check_set(path, &doc.value)?;
        let mut value = doc.value.clone();
        let root = value.as_object_mut().expect("read_json yields an object");
        let mut events = match root.get(SET) {
            Some(existing) => without_ours(path, existing, owner).0,
            None => Map::new(),
        };
        for h in handlers {
            if let Some(list) = events
                .entry(h.event.clone())
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
            {
                list.push(handler(h));
            }
        }
        root.insert(SET.to_owned(), Value::Object(events));
        Ok(FileChange {
            action: doc.save(&value)?,
            path: path.to_path_buf(),
        })
    }

    /// Removes this install's handlers from the `acc` set, and the set once nothing else is
    /// in it; a set of that name that is not acc's stays and is reported kept.
    fn uninstall(
        &self,
        path: &Path,
        _keep: &[PathBuf],
        owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError> {
        let doc = read_json(path)?;
        let Some(existing) = doc.value.get(SET).filter(|_| doc.existed) else {
            return Ok(None);
        };
        if check_set(path, &doc.value).is_err() {
            return Ok(Some(FileChange {
                path: path.to_path_buf(),
                action: ChangeAction::Kept,
            }));
        }
        let (events, removed) = without_ours(path, existing, owner);
        if !removed {
            return Ok(None);
        }
        let mut value = doc.value.clone();
        let root = value.as_object_mut().expect("read_json yields an object");
        if events.is_empty() {
            root.shift_remove(SET);
        } else {
            root.insert(SET.to_owned(), Value::Object(events));
        }
        Ok(Some(FileChange {
            action: doc.save(&value)?,
            path: path.to_path_buf(),
        }))
    }

    fn diagnose(
        &self,
        path: &Path,
        expected: &[HookHandler],
        owner: &HookOwner,
    ) -> Vec<Diagnostic> {
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
        // acc's set first; a look-alike in a set of the user's runs all the same.
        let sets = doc.value.get(SET).into_iter().chain(
            doc.value
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(name, _)| *name != SET)
                .map(|(_, set)| set),
        );
        let found: Vec<FoundHandler> = sets
            .flat_map(commands)
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
        let mut diagnostics = hook_config::diagnose_handlers(path, &found, expected, owner);
        diagnostics.extend(found.iter().filter_map(event_argument_mismatch));
        diagnostics
    }
}

/// The `acc` set's events without this install's handlers, dropping the events only they
/// filled; and whether any was there.
fn without_ours(path: &Path, set: &Value, owner: &HookOwner) -> (Map<String, Value>, bool) {
    let mut events = set.as_object().cloned().unwrap_or_default();
    let mut removed = false;
    events.retain(|event, handlers| {
        let Some(list) = handlers.as_array_mut() else {
            return true;
        };
        let before = list.len();
        list.retain(|h| {
            !h.get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| owner.owns(path, event, None, c))
        });
        removed |= list.len() != before;
        !(list.is_empty() && before > 0)
    });
    (events, removed)
}

/// One handler of acc's hook set.
fn handler(h: &HookHandler) -> Value {
    json!({"type": "command", "command": h.command, "timeout": h.timeout})
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
