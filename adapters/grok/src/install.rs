//! Where Grok reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Grok (0.2.111, its built-in documentation and `grok inspect`) loads every
//! `<grok dir>/hooks/*.json` as global, always-trusted hooks in the Claude-shaped layout
//! with timeouts in seconds, and user skills from `<grok dir>/skills/<name>/SKILL.md`; the
//! grok dir is `$GROK_HOME` when set, else `~/.grok`. Both are files acc owns whole
//! (`hooks/acc.json` and `skills/acc/`), so no user file is edited.
//!
//! Grok also runs the hooks in `~/.claude/settings.json` (its Claude compatibility, on by
//! default), so with Claude Code wired too a Grok session would also run Claude Code's acc
//! hooks. Doctor says so; `[compat.claude] hooks = false` in Grok's `config.toml` stops it.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::AdapterError;
use acc_sdk::hook_config::{self, HookHandler};
use acc_sdk::install::{
    Artifact, ArtifactKind, Detection, Diagnostic, DoctorReport, FileChange, InstallContext,
    InstallPlan, InstallReport,
};
use acc_sdk::install_files::{
    install_tree_file, read_json, read_toml, uninstall_file_tree, write_if_changed,
};
use acc_sdk::json_style::{JsonStyle, render_json_document};
use acc_sdk::probe::{DETECT_TIMEOUT, detect_command};
use acc_sdk::skill::{self, SKILL_NAME};

use crate::ID;

const COMMAND: &str = "grok";
const VERSION_ARGS: [&str; 1] = ["--version"];
const TIMEOUT_SECONDS: u64 = 10;
/// Grok's own file-writing and shell tool names (its matcher also maps Claude's names).
const WRITE_TOOLS: &str = "write|search_replace|hashline_edit|run_terminal_command";
const HOOK_FILE: &str = "acc.json";

/// Every path install writes (and the configs doctor reads); `plan` and `install` use it.
struct Layout {
    hooks: PathBuf,
    skill: PathBuf,
    config: PathBuf,
    claude_settings: PathBuf,
}

fn layout(ctx: &InstallContext) -> Layout {
    let grok = ctx.dir_from_env("GROK_HOME", ".grok");
    Layout {
        hooks: grok.join("hooks").join(HOOK_FILE),
        skill: grok.join("skills").join(SKILL_NAME),
        config: grok.join("config.toml"),
        claude_settings: ctx.home.join(".claude").join("settings.json"),
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
    check(&layout)?;
    let mut artifacts = vec![
        Artifact {
            path: layout.hooks,
            kind: ArtifactKind::Tree,
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

fn check(layout: &Layout) -> Result<(), AdapterError> {
    hook_config::check_owned_file(&layout.hooks)?;
    skill::check_owned(&layout.skill)
}

pub fn install(ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    check(&layout)?;
    let document = hook_config::document(&handlers(ctx));
    let hooks = FileChange {
        action: write_if_changed(
            &layout.hooks,
            &render_json_document(&document, &JsonStyle::default()),
        )?,
        path: layout.hooks.clone(),
    };
    let mut changes = vec![
        hooks,
        install_tree_file(
            &layout.skill,
            skill::SKILL_FILE,
            skill::render(&ctx.acc_executable).as_bytes(),
        )?,
    ];
    changes.sort();
    Ok(InstallReport {
        changes,
        needs_action: Vec::new(),
    })
}

/// Both artifacts are acc's own; one in `keep` (changed since install) stays.
pub fn uninstall(ctx: &InstallContext, keep: &[PathBuf]) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    let hooks = if hook_config::check_owned_file(&layout.hooks).is_ok() {
        uninstall_file_tree(&layout.hooks, keep)?
    } else {
        // Not acc's file (any more): leave it, and say so.
        layout.hooks.exists().then(|| FileChange {
            path: layout.hooks.clone(),
            action: acc_sdk::install::ChangeAction::Kept,
        })
    };
    let mut changes: Vec<_> = hooks
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
    let mut diagnostics = hook_config::diagnose_file(&layout.hooks, &handlers(ctx));
    diagnostics.push(skill::diagnose(&layout.skill, &ctx.acc_executable));
    diagnostics.extend(claude_compat_diagnostic(&layout));
    hook_config::doctor_report(diagnostics)
}

/// A warning when Grok would also run Claude Code's acc hooks.
fn claude_compat_diagnostic(layout: &Layout) -> Option<Diagnostic> {
    let claude_has_acc = read_json(&layout.claude_settings)
        .ok()
        .is_some_and(|doc| !hook_config::find(&doc.value).is_empty());
    if !claude_has_acc || claude_hooks_disabled(&layout.config) {
        return None;
    }
    Some(hook_config::warn(format!(
        "Grok also runs the hooks in {}, which hold Claude Code's acc hooks, so a Grok session runs both; set `[compat.claude] hooks = false` in {} to keep only Grok's",
        layout.claude_settings.display(),
        layout.config.display()
    )))
}

fn claude_hooks_disabled(config: &Path) -> bool {
    read_toml(config)
        .ok()
        .flatten()
        .and_then(|c| c.get("compat")?.get("claude")?.get("hooks")?.as_bool())
        == Some(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::hook_command::runs_acc_hook as is_acc;
    use acc_sdk::install::{ChangeAction, DiagnosticLevel};
    use serde_json::{Value, json};

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
    fn grok_home_is_the_grok_directory_itself() {
        let l = layout(&ctx(Path::new("/home/u"), &[("GROK_HOME", "/g")]));
        assert_eq!(l.hooks, PathBuf::from("/g/hooks/acc.json"));
        assert_eq!(l.skill, PathBuf::from("/g/skills/acc"));
        let l = layout(&ctx(Path::new("/home/u"), &[]));
        assert_eq!(l.hooks, PathBuf::from("/home/u/.grok/hooks/acc.json"));
    }

    #[test]
    fn writes_its_own_hook_file_and_refuses_a_foreign_one() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let report = install(&ctx).unwrap();
        assert!(
            report
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Created)
        );
        let path = dir.path().join(".grok/hooks/acc.json");
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let events: Vec<&String> = written["hooks"].as_object().unwrap().keys().collect();
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
        assert!(is_acc(
            written["hooks"]["Stop"][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
        ));
        assert!(
            install(&ctx)
                .unwrap()
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Unchanged)
        );
        std::fs::write(
            &path,
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo mine"}]}]}}"#,
        )
        .unwrap();
        assert!(plan(&ctx).is_err());
        let report = uninstall(&ctx, &[]).unwrap();
        assert!(path.exists(), "a foreign file is never removed");
        assert!(
            report
                .changes
                .iter()
                .any(|c| c.path == path && c.action == ChangeAction::Kept)
        );
    }

    #[test]
    fn doctor_warns_when_claudes_acc_hooks_would_run_too() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&ctx).unwrap();
        let claude = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
        std::fs::write(
            &claude,
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"\"/x/acc-hook\" claude-code Stop"}]}]}}"#,
        )
        .unwrap();
        let warned = |ctx: &InstallContext| {
            doctor(ctx)
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Warn && d.message.contains("compat.claude"))
        };
        assert!(warned(&ctx));
        std::fs::write(
            dir.path().join(".grok/config.toml"),
            "[compat.claude]\nhooks = false\n",
        )
        .unwrap();
        assert!(!warned(&ctx));
    }
}
