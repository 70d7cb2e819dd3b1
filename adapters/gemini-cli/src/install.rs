//! Where Gemini CLI reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Gemini CLI keeps its user settings in `<gemini home>/.gemini/settings.json`, where the
//! gemini home is `$GEMINI_CLI_HOME` when set and the user's home otherwise. Hooks go under
//! `hooks.<Event>`, each handler named `acc-<Event>`, timeouts in **milliseconds**. User
//! skills are read from `<gemini home>/.gemini/skills/<name>/SKILL.md` (observed with
//! Gemini CLI 0.61.0, which also reads `~/.agents/skills`; acc uses the Gemini-only
//! directory). Gemini CLI rewrites `settings.json` on start when it migrates old keys, so
//! after a run the file no longer matches what install wrote and uninstall removes acc's
//! entries structurally instead of restoring the original bytes.

use std::path::PathBuf;

use acc_sdk::adapter::AdapterError;
use acc_sdk::hook_config::{self, HookHandler};
use acc_sdk::install::{
    Artifact, ArtifactKind, Detection, DoctorReport, InstallContext, InstallPlan, InstallReport,
};
use acc_sdk::probe::{DETECT_TIMEOUT, detect_command};
use acc_sdk::skill::{self, SKILL_NAME};

use crate::ID;

const COMMAND: &str = "gemini";
const VERSION_ARGS: [&str; 1] = ["--version"];
const TIMEOUT_MILLISECONDS: u64 = 10_000;
/// Gemini CLI's file-writing and shell tools.
const WRITE_TOOLS: &str = "write_file|replace|run_shell_command";

/// Every path install writes; `plan` and `install` both use it.
struct Layout {
    settings: PathBuf,
    skill: PathBuf,
}

fn layout(ctx: &InstallContext) -> Layout {
    let gemini = match ctx.var("GEMINI_CLI_HOME").map(PathBuf::from) {
        Some(home) if home.is_absolute() => home.join(".gemini"),
        _ => ctx.home.join(".gemini"),
    };
    Layout {
        settings: gemini.join("settings.json"),
        skill: gemini.join("skills").join(SKILL_NAME),
    }
}

fn handlers(ctx: &InstallContext) -> Vec<HookHandler> {
    let hook = |event: &str| {
        HookHandler::new(ctx, ID, event, TIMEOUT_MILLISECONDS).with_name(format!("acc-{event}"))
    };
    vec![
        hook("SessionStart"),
        hook("BeforeAgent"),
        hook("BeforeTool").with_matcher(WRITE_TOOLS),
        hook("AfterAgent"),
        hook("SessionEnd"),
    ]
}

pub fn detect(ctx: &InstallContext) -> Detection {
    detect_command(ctx, COMMAND, &VERSION_ARGS, DETECT_TIMEOUT)
}

pub fn plan(ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
    let layout = layout(ctx);
    hook_config::check_file(&layout.settings, &handlers(ctx))?;
    skill::check_owned(&layout.skill)?;
    let mut artifacts = vec![
        Artifact {
            path: layout.settings,
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
    let handlers = handlers(ctx);
    hook_config::check_file(&layout.settings, &handlers)?;
    skill::check_owned(&layout.skill)?;
    let mut changes = vec![
        hook_config::install_file(&layout.settings, &handlers)?,
        skill::install(&layout.skill, &ctx.acc_executable)?,
    ];
    changes.sort();
    Ok(InstallReport {
        changes,
        needs_action: Vec::new(),
    })
}

/// `keep` names trees changed since install; `settings.json` is the user's and always loses
/// exactly acc's entries.
pub fn uninstall(ctx: &InstallContext, keep: &[PathBuf]) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    let mut changes: Vec<_> = hook_config::uninstall_file(&layout.settings)?
        .into_iter()
        .chain(skill::uninstall(&layout.skill, keep)?)
        .collect();
    changes.sort();
    Ok(InstallReport {
        changes,
        needs_action: Vec::new(),
    })
}

pub fn doctor(ctx: &InstallContext) -> DoctorReport {
    let layout = layout(ctx);
    let mut diagnostics = hook_config::diagnose_file(&layout.settings, &handlers(ctx));
    diagnostics.push(skill::diagnose(&layout.skill, &ctx.acc_executable));
    hook_config::doctor_report(diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use std::path::Path;

    fn ctx(home: &Path, env: &[(&str, &str)]) -> InstallContext {
        InstallContext {
            home: home.to_path_buf(),
            acc_data_dir: home.join("data/acc"),
            hook_executable: PathBuf::from("/opt/acc/bin/acc-hook"),
            acc_executable: PathBuf::from("/opt/acc/bin/acc"),
            pinned_data_home: None,
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
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
    fn gemini_cli_home_holds_the_dot_gemini_directory() {
        let l = layout(&ctx(Path::new("/home/u"), &[]));
        assert_eq!(l.settings, PathBuf::from("/home/u/.gemini/settings.json"));
        assert_eq!(l.skill, PathBuf::from("/home/u/.gemini/skills/acc"));
        let l = layout(&ctx(Path::new("/home/u"), &[("GEMINI_CLI_HOME", "/iso")]));
        assert_eq!(l.settings, PathBuf::from("/iso/.gemini/settings.json"));
    }

    #[test]
    fn handlers_are_named_and_timed_in_milliseconds() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&ctx).unwrap();
        let settings: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(".gemini/settings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            settings["hooks"]["BeforeTool"],
            json!([{
                "matcher": WRITE_TOOLS,
                "hooks": [{
                    "name": "acc-BeforeTool",
                    "type": "command",
                    "command": "\"/opt/acc/bin/acc-hook\" gemini-cli BeforeTool",
                    "timeout": 10000
                }]
            }])
        );
        let events: Vec<&String> = settings["hooks"].as_object().unwrap().keys().collect();
        assert_eq!(
            events,
            [
                "SessionStart",
                "BeforeAgent",
                "BeforeTool",
                "AfterAgent",
                "SessionEnd"
            ]
        );
        assert!(
            settings["hooks"]["SessionStart"][0]
                .get("matcher")
                .is_none()
        );
    }
}
