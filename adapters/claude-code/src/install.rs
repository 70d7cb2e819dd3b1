//! Where Claude Code reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Claude Code reads user hooks from `<config dir>/settings.json` and user skills from
//! `<config dir>/skills/<name>/SKILL.md`, where the config dir is `$CLAUDE_CONFIG_DIR` when
//! set and `~/.claude` otherwise (both observed with Claude Code 2.1.332: a skill under
//! `~/.claude/skills` is not read once `CLAUDE_CONFIG_DIR` points elsewhere). Hook timeouts
//! are in seconds.

use std::path::PathBuf;

use acc_sdk::adapter::AdapterError;
use acc_sdk::hook_config::{self, HookHandler};
use acc_sdk::install::{
    Artifact, ArtifactKind, Detection, DoctorReport, InstallContext, InstallPlan, InstallReport,
};
use acc_sdk::probe::{DETECT_TIMEOUT, detect_command};
use acc_sdk::skill::{self, SKILL_NAME};

use crate::ID;

const COMMAND: &str = "claude";
const VERSION_ARGS: [&str; 1] = ["--version"];
const TIMEOUT_SECONDS: u64 = 10;
/// Every tool that writes a file or runs a shell.
const WRITE_TOOLS: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash";

/// Every path install writes; `plan` and `install` both use it.
struct Layout {
    settings: PathBuf,
    skill: PathBuf,
}

fn layout(ctx: &InstallContext) -> Layout {
    let config = ctx.dir_from_env("CLAUDE_CONFIG_DIR", ".claude");
    Layout {
        settings: config.join("settings.json"),
        skill: config.join("skills").join(SKILL_NAME),
    }
}

fn handlers(ctx: &InstallContext) -> Vec<HookHandler> {
    let hook = |event| HookHandler::new(ctx, ID, event, TIMEOUT_SECONDS);
    vec![
        hook("SessionStart"),
        hook("UserPromptSubmit"),
        hook("PreToolUse").with_matcher(WRITE_TOOLS),
        hook("Stop"),
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
    use acc_sdk::install::ChangeAction;
    use serde_json::Value;
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
        assert_eq!(
            manifest["client"]["versionArgs"],
            serde_json::json!(VERSION_ARGS)
        );
    }

    #[test]
    fn config_dir_follows_claude_config_dir() {
        let home = Path::new("/home/u");
        let plain = layout(&ctx(home, &[]));
        assert_eq!(plain.settings, home.join(".claude/settings.json"));
        assert_eq!(plain.skill, home.join(".claude/skills/acc"));
        let moved = layout(&ctx(home, &[("CLAUDE_CONFIG_DIR", "/cfg/claude")]));
        assert_eq!(moved.settings, PathBuf::from("/cfg/claude/settings.json"));
        assert_eq!(moved.skill, PathBuf::from("/cfg/claude/skills/acc"));
        let relative = layout(&ctx(home, &[("CLAUDE_CONFIG_DIR", "rel")]));
        assert_eq!(relative.settings, home.join(".claude/settings.json"));
    }

    #[test]
    fn hooks_cover_the_lifecycle_and_every_write_tool_in_seconds() {
        let hs = handlers(&ctx(Path::new("/h"), &[]));
        let events: Vec<&str> = hs.iter().map(|h| h.event.as_str()).collect();
        assert_eq!(
            events,
            [
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "Stop",
                "SessionEnd"
            ]
        );
        assert!(hs.iter().all(|h| h.timeout == 10 && h.name.is_none()));
        assert_eq!(hs[2].matcher.as_deref(), Some(WRITE_TOOLS));
        assert_eq!(
            hs[0].command,
            "\"/opt/acc/bin/acc-hook\" claude-code SessionStart"
        );
    }

    #[test]
    fn plan_names_what_install_writes_and_uninstall_takes_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let plan = plan(&ctx).unwrap();
        let report = install(&ctx).unwrap();
        let written: Vec<_> = report.changes.iter().map(|c| c.path.clone()).collect();
        let planned: Vec<_> = plan.artifacts.iter().map(|a| a.path.clone()).collect();
        assert_eq!(written, planned);
        assert!(
            report
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Created)
        );
        let again = install(&ctx).unwrap();
        assert!(
            again
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Unchanged)
        );
        assert!(
            doctor(&ctx)
                .diagnostics
                .iter()
                .any(|d| d.message.contains("5 acc hook(s)"))
        );
        uninstall(&ctx, &[]).unwrap();
        let settings = std::fs::read_to_string(dir.path().join(".claude/settings.json")).unwrap();
        assert_eq!(settings, "{}\n");
        assert!(!dir.path().join(".claude/skills/acc").exists());
    }
}
