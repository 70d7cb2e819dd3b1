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

use acc_sdk::hook_config;
use acc_sdk::install::{Diagnostic, InstallContext};
use acc_sdk::install_files::{read_json, read_toml};
use acc_sdk::install_layout::{
    HookFileClient, HookFileLayout, HookSpec, HookWiring, OwnedJsonHooks,
};

const TIMEOUT_SECONDS: u64 = 10;
/// Grok's own file-writing and shell tool names (its matcher also maps Claude's names).
const WRITE_TOOLS: &str = "write|search_replace|hashline_edit|run_terminal_command";
const HOOK_FILE: &str = "acc.json";

fn grok_dir(ctx: &InstallContext) -> PathBuf {
    ctx.dir_from_env("GROK_HOME", ".grok")
}

/// The configs doctor reads, derived from the same home as the layout.
struct Configs {
    grok: PathBuf,
    claude_settings: PathBuf,
}

fn configs(ctx: &InstallContext) -> Configs {
    Configs {
        grok: grok_dir(ctx).join("config.toml"),
        claude_settings: ctx.home.join(".claude").join("settings.json"),
    }
}

/// `hooks/acc.json` and the skill tree, both acc's own: no user file is edited.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "grok";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("UserPromptSubmit", TIMEOUT_SECONDS),
        HookSpec::new("PreToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        // After a shell call: did it change a peer's claimed files anyway?
        HookSpec::new("PostToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_SECONDS),
        // A subagent (spawn_subagent) as a child session of the conversation that ran it.
        HookSpec::new("SubagentStart", TIMEOUT_SECONDS),
        HookSpec::new("SubagentStop", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &OwnedJsonHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(&grok_dir(ctx), Path::new("hooks").join(HOOK_FILE))
    }

    fn more_diagnostics(&self, ctx: &InstallContext, _layout: &HookFileLayout) -> Vec<Diagnostic> {
        claude_compat_diagnostic(&configs(ctx))
            .into_iter()
            .collect()
    }
}

/// A warning when Grok would also run Claude Code's acc hooks.
fn claude_compat_diagnostic(configs: &Configs) -> Option<Diagnostic> {
    let claude_has_acc = read_json(&configs.claude_settings)
        .ok()
        .is_some_and(|doc| !hook_config::find_all(&doc.value).is_empty());
    if !claude_has_acc || claude_hooks_disabled(&configs.grok) {
        return None;
    }
    Some(hook_config::warn(format!(
        "Grok also runs the hooks in {}, which hold Claude Code's acc hooks, so a Grok session runs both; set `[compat.claude] hooks = false` in {} to keep only Grok's",
        configs.claude_settings.display(),
        configs.grok.display()
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
    use acc_sdk::install_layout::{doctor, install, plan, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};
    use serde_json::Value;

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn grok_home_is_the_grok_directory_itself() {
        assert_eq!(
            layout_paths(&Install, &[("GROK_HOME", "/g")]),
            ["/g/hooks/acc.json", "/g/skills/acc"]
        );
        assert_eq!(
            layout_paths(&Install, &[]),
            ["/home/u/.grok/hooks/acc.json", "/home/u/.grok/skills/acc"]
        );
    }

    #[test]
    fn writes_its_own_hook_file_and_refuses_a_foreign_one() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let report = install(&Install, &ctx).unwrap();
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
                "PostToolUse",
                "Stop",
                "SessionEnd",
                "SubagentStart",
                "SubagentStop"
            ]
        );
        assert!(is_acc(
            written["hooks"]["Stop"][0]["hooks"][0]["command"]
                .as_str()
                .unwrap()
        ));
        assert!(
            install(&Install, &ctx)
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
        assert!(plan(&Install, &ctx).is_err());
        let report = uninstall(&Install, &ctx, &[]).unwrap();
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
        install(&Install, &ctx).unwrap();
        let claude = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
        std::fs::write(
            &claude,
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"\"/x/acc-hook\" claude-code Stop"}]}]}}"#,
        )
        .unwrap();
        let warned = |ctx: &InstallContext| {
            doctor(&Install, ctx)
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
