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
use acc_sdk::install::{
    Artifact, ArtifactKind, ChangeAction, Detection, DoctorReport, FileChange, InstallContext,
    InstallPlan, InstallReport,
};
use acc_sdk::install_files::read_json;
use acc_sdk::probe::{DETECT_TIMEOUT, detect_command};
use acc_sdk::skill::{self, SKILL_NAME};
use serde_json::{Map, Value, json};

use crate::ID;

const COMMAND: &str = "agy";
const VERSION_ARGS: [&str; 1] = ["--version"];
const TIMEOUT_SECONDS: u64 = 10;
/// The hook set acc owns in `hooks.json`.
const SET: &str = "acc";
/// The events that load in Antigravity and that acc uses.
const EVENTS: [&str; 3] = ["SessionStart", "PreInvocation", "Stop"];

/// Every path install writes; `plan` and `install` both use it.
struct Layout {
    hooks: PathBuf,
    skill: PathBuf,
}

fn layout(ctx: &InstallContext) -> Layout {
    let config = ctx.home.join(".gemini").join("config");
    Layout {
        hooks: config.join("hooks.json"),
        skill: config.join("skills").join(SKILL_NAME),
    }
}

fn handlers(ctx: &InstallContext) -> Vec<HookHandler> {
    EVENTS
        .iter()
        .map(|event| HookHandler::new(ctx, ID, event, TIMEOUT_SECONDS))
        .collect()
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

pub fn detect(ctx: &InstallContext) -> Detection {
    detect_command(ctx, COMMAND, &VERSION_ARGS, DETECT_TIMEOUT)
}

pub fn plan(ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
    let layout = layout(ctx);
    check_set(&layout.hooks, &read_json(&layout.hooks)?.value)?;
    skill::check_owned(&layout.skill)?;
    let mut artifacts = vec![
        Artifact {
            path: layout.hooks,
            kind: ArtifactKind::Merge,
        },
        Artifact {
            path: layout.skill,
            kind: ArtifactKind::Tree,
        },
    ];
    artifacts.sort();
    Ok(InstallPlan {
        artifacts,
        needs_action: Vec::new(),
    })
}

pub fn install(ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    let doc = read_json(&layout.hooks)?;
    check_set(&layout.hooks, &doc.value)?;
    skill::check_owned(&layout.skill)?;
    let mut value = doc.value.clone();
    value
        .as_object_mut()
        .expect("read_json yields an object")
        .insert(SET.to_owned(), set(&handlers(ctx)));
    let hooks = FileChange {
        action: doc.save(&value)?,
        path: layout.hooks.clone(),
    };
    let mut changes = vec![hooks, skill::install(&layout.skill, &ctx.acc_executable)?];
    changes.sort();
    Ok(InstallReport {
        changes,
        needs_action: Vec::new(),
    })
}

/// Removes the `acc` set (only when acc wrote it) and the skill tree unless it is in `keep`.
pub fn uninstall(ctx: &InstallContext, keep: &[PathBuf]) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    let doc = read_json(&layout.hooks)?;
    let mut changes = Vec::new();
    if doc.existed && doc.value.get(SET).is_some() {
        if check_set(&layout.hooks, &doc.value).is_ok() {
            let mut value = doc.value.clone();
            value
                .as_object_mut()
                .expect("read_json yields an object")
                .shift_remove(SET);
            let action = doc.save(&value)?;
            changes.push(FileChange {
                path: layout.hooks.clone(),
                action,
            });
        } else {
            changes.push(FileChange {
                path: layout.hooks.clone(),
                action: ChangeAction::Kept,
            });
        }
    }
    changes.extend(skill::uninstall(&layout.skill, keep)?);
    changes.sort();
    Ok(InstallReport {
        changes,
        needs_action: Vec::new(),
    })
}

pub fn doctor(ctx: &InstallContext) -> DoctorReport {
    let layout = layout(ctx);
    let expected = handlers(ctx);
    let mut diagnostics = match read_json(&layout.hooks) {
        Ok(doc) if doc.existed => {
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
            let mut diags = hook_config::diagnose_handlers(&layout.hooks, &found, &expected);
            diags.extend(found.iter().filter_map(event_argument_mismatch));
            diags
        }
        Ok(_) => vec![hook_config::error(format!(
            "{} does not exist, so no acc hook runs",
            layout.hooks.display()
        ))],
        Err(e) => vec![hook_config::error(e.message)],
    };
    diagnostics.push(skill::diagnose(&layout.skill, &ctx.acc_executable));
    hook_config::doctor_report(diagnostics)
}

/// The event argument is the only way the hook learns its event here, so a command filed
/// under one event that names another is an error.
fn event_argument_mismatch(found: &FoundHandler) -> Option<acc_sdk::install::Diagnostic> {
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

    fn ctx(home: &Path) -> InstallContext {
        InstallContext {
            home: home.to_path_buf(),
            acc_data_dir: home.join("data/acc"),
            hook_executable: PathBuf::from("/opt/acc/bin/acc-hook"),
            acc_executable: PathBuf::from("/opt/acc/bin/acc"),
            pinned_data_home: None,
            env: Default::default(),
            platform: "linux-x64".to_owned(),
            receiver_sockets: Vec::new(),
            acc_version: "0.1.0".to_owned(),
        }
    }

    #[test]
    fn the_probe_is_the_manifests() {
        let manifest: Value = serde_json::from_str(include_str!("../adapter.json")).unwrap();
        assert_eq!(manifest["client"]["command"], COMMAND);
        assert_eq!(manifest["client"]["versionArgs"], json!(VERSION_ARGS));
    }

    #[test]
    fn each_command_names_its_event_last() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path());
        install(&ctx).unwrap();
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
        install(&ctx).unwrap();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            doc.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["mine", "acc"]
        );
        uninstall(&ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), original);
        std::fs::write(
            &path,
            r#"{"acc": {"Stop": [{"type": "command", "command": "say hi"}]}}"#,
        )
        .unwrap();
        assert_eq!(plan(&ctx).unwrap_err().kind, AdapterErrorKind::Conflict);
        let report = uninstall(&ctx, &[]).unwrap();
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
        let report = doctor(&ctx);
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
