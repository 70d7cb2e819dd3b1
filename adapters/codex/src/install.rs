//! Where Codex reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Codex reads user hooks from `$CODEX_HOME/hooks.json` (default `~/.codex`) in the
//! Claude-shaped layout, timeouts in seconds, and user skills from
//! `$CODEX_HOME/skills/<name>/SKILL.md` (observed with Codex CLI 0.171.0, which also reads
//! `~/.agents/skills`; acc uses the Codex-only directory so no other client's tree
//! overlaps). 0.171.0 accepts `SessionEnd`, runs it, and clamps its timeout to 3 s with a
//! warning, so acc writes 3.
//!
//! Codex runs a non-managed hook only after the user trusted it, and skips an untrusted one
//! without a word. Trust lives in `$CODEX_HOME/config.toml` as
//! `[hooks.state."<hooks.json path>:<event_snake>:<group>:<handler>"]` tables (the key
//! format `codex app-server`'s `hooks/list` reports). acc never writes or removes them:
//! trusting is the user's decision, so install says how and doctor says whether.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::AdapterError;
use acc_sdk::hook_config::{self, FoundHandler};
use acc_sdk::hook_owner::HookOwner;
use acc_sdk::install::{Diagnostic, InstallContext};
use acc_sdk::install_files::{read_json, read_toml};
use acc_sdk::install_layout::{
    HookFileClient, HookFileLayout, HookSpec, HookWiring, MergedJsonHooks,
};

const TIMEOUT_SECONDS: u64 = 10;
/// Codex clamps a longer SessionEnd timeout to this.
const SESSION_END_TIMEOUT_SECONDS: u64 = 3;
/// Codex reports its patch tool as `apply_patch` and `exec_command` as `Bash`.
const WRITE_TOOLS: &str = "apply_patch|Bash";

fn codex_home(ctx: &InstallContext) -> PathBuf {
    ctx.dir_from_env("CODEX_HOME", ".codex")
}

/// The config doctor reads trust from; derived from the same home as the layout.
fn config_path(ctx: &InstallContext) -> PathBuf {
    codex_home(ctx).join("config.toml")
}

/// acc's handlers merged into `hooks.json`, the skill tree beside it, and the user's trust
/// in them, which only the user can give.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "codex";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("UserPromptSubmit", TIMEOUT_SECONDS),
        HookSpec::new("PreToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        // After a shell call: did it change a peer's claimed files anyway?
        HookSpec::new("PostToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", SESSION_END_TIMEOUT_SECONDS),
        // A sub-agent (multi_agent_v1's spawn_agent) as a child session of its parent.
        HookSpec::new("SubagentStart", TIMEOUT_SECONDS),
        HookSpec::new("SubagentStop", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &MergedJsonHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(&codex_home(ctx), "hooks.json")
    }

    fn plan_needs_action(&self, _ctx: &InstallContext, layout: &HookFileLayout) -> Vec<String> {
        vec![trust_steps(&layout.hooks)]
    }

    /// Nothing to do once every acc hook is trusted.
    fn install_needs_action(&self, ctx: &InstallContext, layout: &HookFileLayout) -> Vec<String> {
        match trust_state(&layout.hooks, &config_path(ctx), &owner(ctx)) {
            Ok(TrustState { trusted, total }) if trusted == total && total > 0 => Vec::new(),
            _ => vec![trust_steps(&layout.hooks)],
        }
    }

    fn more_diagnostics(&self, ctx: &InstallContext, layout: &HookFileLayout) -> Vec<Diagnostic> {
        vec![trust_diagnostic(
            &layout.hooks,
            &config_path(ctx),
            &owner(ctx),
        )]
    }
}

fn owner(ctx: &InstallContext) -> HookOwner {
    HookOwner::new(ctx, crate::ID)
}

fn trust_steps(hooks: &Path) -> String {
    format!(
        "Codex skips hooks nobody trusted, without a word: run `codex`, type /hooks and trust acc's hooks from {} (for a single headless run, `codex exec --dangerously-bypass-hook-trust` runs them unreviewed)",
        hooks.display()
    )
}

/// How many of this install's hooks in `hooks.json` have a trust table in `config.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TrustState {
    trusted: usize,
    total: usize,
}

fn trust_state(hooks: &Path, config: &Path, owner: &HookOwner) -> Result<TrustState, AdapterError> {
    let found = hook_config::find(
        &read_json(hooks)?.value,
        &hook_config::owned_in(owner, hooks),
    );
    let config = read_toml(config)?;
    let state = config
        .as_ref()
        .and_then(|c| c.get("hooks"))
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_object());
    let trusted = found
        .iter()
        .filter(|h| state.is_some_and(|s| s.contains_key(&trust_key(hooks, h))))
        .count();
    Ok(TrustState {
        trusted,
        total: found.len(),
    })
}

/// The key Codex files a hook's trust under.
fn trust_key(hooks: &Path, handler: &FoundHandler) -> String {
    format!(
        "{}:{}:{}:{}",
        hooks.display(),
        snake_case(&handler.event),
        handler.group,
        handler.index
    )
}

fn snake_case(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn trust_diagnostic(hooks: &Path, config: &Path, owner: &HookOwner) -> Diagnostic {
    match trust_state(hooks, config, owner) {
        Err(e) => hook_config::error(e.message),
        Ok(TrustState { total: 0, .. }) => {
            hook_config::warn(format!("no acc hook in {} to trust", hooks.display()))
        }
        Ok(TrustState { trusted, total }) if trusted == total => hook_config::ok(format!(
            "{}: trust recorded for all {total} acc hook(s) (Codex asks again whenever a hook's command changes)",
            config.display()
        )),
        Ok(TrustState { trusted, total }) => hook_config::warn(format!(
            "{}: trust recorded for {trusted} of {total} acc hook(s). {}",
            config.display(),
            trust_steps(hooks)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::DiagnosticLevel;
    use acc_sdk::install_layout::{install, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context, layout_paths};

    /// Codex tests run with a pinned data home, which every hook command must carry.
    fn ctx(home: &Path, env: &[(&str, &str)]) -> InstallContext {
        InstallContext {
            pinned_data_home: Some(PathBuf::from("/data")),
            ..context(home, env)
        }
    }

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn codex_home_moves_everything() {
        let moved = [("CODEX_HOME", "/srv/codex")];
        assert_eq!(
            layout_paths(&Install, &moved),
            ["/srv/codex/hooks.json", "/srv/codex/skills/acc"]
        );
        assert_eq!(
            config_path(&ctx(Path::new("/home/u"), &moved)),
            PathBuf::from("/srv/codex/config.toml")
        );
        assert_eq!(
            layout_paths(&Install, &[]),
            ["/home/u/.codex/hooks.json", "/home/u/.codex/skills/acc"]
        );
    }

    #[test]
    fn hooks_pin_the_data_home_and_respect_codex_clamps() {
        let hs = Install.handlers(&ctx(Path::new("/h"), &[]));
        let events: Vec<(&str, u64)> = hs.iter().map(|h| (h.event.as_str(), h.timeout)).collect();
        assert_eq!(
            events,
            [
                ("SessionStart", 10),
                ("UserPromptSubmit", 10),
                ("PreToolUse", 10),
                ("PostToolUse", 10),
                ("Stop", 10),
                ("SessionEnd", 3),
                ("SubagentStart", 10),
                ("SubagentStop", 10)
            ]
        );
        assert_eq!(hs[2].matcher.as_deref(), Some("apply_patch|Bash"));
        assert_eq!(
            hs[4].command,
            "\"/opt/acc/bin/acc-hook\" --data-home \"/data\" codex Stop"
        );
    }

    #[test]
    fn trust_is_reported_per_hook_and_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let report = install(&Install, &ctx).unwrap();
        assert_eq!(report.needs_action.len(), 1);
        assert!(report.needs_action[0].contains("/hooks"));
        let hooks_path = Install.layout(&ctx).hooks;
        let config_path = config_path(&ctx);
        assert!(!config_path.exists());
        let diag = trust_diagnostic(&hooks_path, &config_path, &owner(&ctx));
        assert_eq!(diag.level, DiagnosticLevel::Warn);
        assert!(diag.message.contains("0 of 8"), "{}", diag.message);
        let hooks = hooks_path.display().to_string();
        let config = format!(
            "model = \"x\"\n[hooks.state.\"{hooks}:session_start:0:0\"]\ntrusted_hash = \"sha256:1\"\n[hooks.state.\"{hooks}:user_prompt_submit:0:0\"]\ntrusted_hash = \"sha256:2\"\n[hooks.state.\"{hooks}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:3\"\n[hooks.state.\"{hooks}:post_tool_use:0:0\"]\ntrusted_hash = \"sha256:6\"\n[hooks.state.\"{hooks}:stop:0:0\"]\ntrusted_hash = \"sha256:4\"\n[hooks.state.\"{hooks}:session_end:0:0\"]\ntrusted_hash = \"sha256:5\"\n[hooks.state.\"{hooks}:subagent_start:0:0\"]\ntrusted_hash = \"sha256:7\"\n[hooks.state.\"{hooks}:subagent_stop:0:0\"]\ntrusted_hash = \"sha256:8\"\n"
        );
        std::fs::write(&config_path, &config).unwrap();
        assert_eq!(
            trust_diagnostic(&hooks_path, &config_path, &owner(&ctx)).level,
            DiagnosticLevel::Ok
        );
        assert!(install(&Install, &ctx).unwrap().needs_action.is_empty());
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&config_path).unwrap(), config);
    }

    #[test]
    fn event_names_become_codex_snake_case() {
        assert_eq!(snake_case("SessionStart"), "session_start");
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("Stop"), "stop");
    }
}
