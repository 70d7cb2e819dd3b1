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
use acc_sdk::hook_config::{self, FoundHandler, HookHandler};
use acc_sdk::install::{
    Artifact, ArtifactKind, Detection, Diagnostic, DoctorReport, InstallContext, InstallPlan,
    InstallReport,
};
use acc_sdk::install_files::{read_json, read_toml};
use acc_sdk::probe::{DETECT_TIMEOUT, detect_command};
use acc_sdk::skill::{self, SKILL_NAME};

use crate::ID;

const COMMAND: &str = "codex";
const VERSION_ARGS: [&str; 1] = ["--version"];
const TIMEOUT_SECONDS: u64 = 10;
/// Codex clamps a longer SessionEnd timeout to this.
const SESSION_END_TIMEOUT_SECONDS: u64 = 3;
/// Codex reports its patch tool as `apply_patch` and `exec_command` as `Bash`.
const WRITE_TOOLS: &str = "apply_patch|Bash";

/// Every path install writes (and the config doctor reads); `plan` and `install` both use it.
struct Layout {
    hooks: PathBuf,
    skill: PathBuf,
    config: PathBuf,
}

fn layout(ctx: &InstallContext) -> Layout {
    let codex_home = ctx.dir_from_env("CODEX_HOME", ".codex");
    Layout {
        hooks: codex_home.join("hooks.json"),
        skill: codex_home.join("skills").join(SKILL_NAME),
        config: codex_home.join("config.toml"),
    }
}

fn handlers(ctx: &InstallContext) -> Vec<HookHandler> {
    let hook = |event| HookHandler::new(ctx, ID, event, TIMEOUT_SECONDS);
    let mut session_end = hook("SessionEnd");
    session_end.timeout = SESSION_END_TIMEOUT_SECONDS;
    vec![
        hook("SessionStart"),
        hook("UserPromptSubmit"),
        hook("PreToolUse").with_matcher(WRITE_TOOLS),
        hook("Stop"),
        session_end,
    ]
}

fn trust_steps(hooks: &Path) -> String {
    format!(
        "Codex skips hooks nobody trusted, without a word: run `codex`, type /hooks and trust acc's hooks from {} (for a single headless run, `codex exec --dangerously-bypass-hook-trust` runs them unreviewed)",
        hooks.display()
    )
}

pub fn detect(ctx: &InstallContext) -> Detection {
    detect_command(ctx, COMMAND, &VERSION_ARGS, DETECT_TIMEOUT)
}

pub fn plan(ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
    let layout = layout(ctx);
    hook_config::check_file(&layout.hooks, &handlers(ctx))?;
    skill::check_owned(&layout.skill)?;
    let mut artifacts = vec![
        Artifact {
            path: layout.hooks.clone(),
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
        needs_action: vec![trust_steps(&layout.hooks)],
    })
}

pub fn install(ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    let handlers = handlers(ctx);
    hook_config::check_file(&layout.hooks, &handlers)?;
    skill::check_owned(&layout.skill)?;
    let mut changes = vec![
        hook_config::install_file(&layout.hooks, &handlers)?,
        skill::install(&layout.skill, &ctx.acc_executable)?,
    ];
    changes.sort();
    let needs_action = match trust_state(&layout) {
        Ok(TrustState { trusted, total }) if trusted == total && total > 0 => Vec::new(),
        _ => vec![trust_steps(&layout.hooks)],
    };
    Ok(InstallReport {
        changes,
        needs_action,
    })
}

/// `keep` names trees changed since install; `hooks.json` is the user's and always loses
/// exactly acc's entries. Trust tables in `config.toml` are never touched.
pub fn uninstall(ctx: &InstallContext, keep: &[PathBuf]) -> Result<InstallReport, AdapterError> {
    let layout = layout(ctx);
    let mut changes: Vec<_> = hook_config::uninstall_file(&layout.hooks)?
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
    diagnostics.push(trust_diagnostic(&layout));
    hook_config::doctor_report(diagnostics)
}

/// How many of acc's hooks in `hooks.json` have a trust table in `config.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TrustState {
    trusted: usize,
    total: usize,
}

fn trust_state(layout: &Layout) -> Result<TrustState, AdapterError> {
    let found = hook_config::find(&read_json(&layout.hooks)?.value);
    let config = read_toml(&layout.config)?;
    let state = config
        .as_ref()
        .and_then(|c| c.get("hooks"))
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_object());
    let trusted = found
        .iter()
        .filter(|h| state.is_some_and(|s| s.contains_key(&trust_key(&layout.hooks, h))))
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

fn trust_diagnostic(layout: &Layout) -> Diagnostic {
    match trust_state(layout) {
        Err(e) => hook_config::error(e.message),
        Ok(TrustState { total: 0, .. }) => hook_config::warn(format!(
            "no acc hook in {} to trust",
            layout.hooks.display()
        )),
        Ok(TrustState { trusted, total }) if trusted == total => hook_config::ok(format!(
            "{}: trust recorded for all {total} acc hook(s) (Codex asks again whenever a hook's command changes)",
            layout.config.display()
        )),
        Ok(TrustState { trusted, total }) => hook_config::warn(format!(
            "{}: trust recorded for {trusted} of {total} acc hook(s). {}",
            layout.config.display(),
            trust_steps(&layout.hooks)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::DiagnosticLevel;
    use serde_json::Value;

    fn ctx(home: &Path, env: &[(&str, &str)]) -> InstallContext {
        InstallContext {
            home: home.to_path_buf(),
            acc_data_dir: home.join("data/acc"),
            hook_executable: PathBuf::from("/opt/acc/bin/acc-hook"),
            acc_executable: PathBuf::from("/opt/acc/bin/acc"),
            pinned_data_home: Some(PathBuf::from("/data")),
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
    fn codex_home_moves_everything() {
        let l = layout(&ctx(Path::new("/home/u"), &[("CODEX_HOME", "/srv/codex")]));
        assert_eq!(l.hooks, PathBuf::from("/srv/codex/hooks.json"));
        assert_eq!(l.skill, PathBuf::from("/srv/codex/skills/acc"));
        assert_eq!(l.config, PathBuf::from("/srv/codex/config.toml"));
        let l = layout(&ctx(Path::new("/home/u"), &[]));
        assert_eq!(l.hooks, PathBuf::from("/home/u/.codex/hooks.json"));
    }

    #[test]
    fn hooks_pin_the_data_home_and_respect_codex_clamps() {
        let hs = handlers(&ctx(Path::new("/h"), &[]));
        let events: Vec<(&str, u64)> = hs.iter().map(|h| (h.event.as_str(), h.timeout)).collect();
        assert_eq!(
            events,
            [
                ("SessionStart", 10),
                ("UserPromptSubmit", 10),
                ("PreToolUse", 10),
                ("Stop", 10),
                ("SessionEnd", 3)
            ]
        );
        assert_eq!(hs[2].matcher.as_deref(), Some("apply_patch|Bash"));
        assert_eq!(
            hs[3].command,
            "\"/opt/acc/bin/acc-hook\" --data-home \"/data\" codex Stop"
        );
    }

    #[test]
    fn trust_is_reported_per_hook_and_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let report = install(&ctx).unwrap();
        assert_eq!(report.needs_action.len(), 1);
        assert!(report.needs_action[0].contains("/hooks"));
        let layout = layout(&ctx);
        assert!(!layout.config.exists());
        let diag = trust_diagnostic(&layout);
        assert_eq!(diag.level, DiagnosticLevel::Warn);
        assert!(diag.message.contains("0 of 5"), "{}", diag.message);
        let hooks = layout.hooks.display().to_string();
        let config = format!(
            "model = \"x\"\n[hooks.state.\"{hooks}:session_start:0:0\"]\ntrusted_hash = \"sha256:1\"\n[hooks.state.\"{hooks}:user_prompt_submit:0:0\"]\ntrusted_hash = \"sha256:2\"\n[hooks.state.\"{hooks}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:3\"\n[hooks.state.\"{hooks}:stop:0:0\"]\ntrusted_hash = \"sha256:4\"\n[hooks.state.\"{hooks}:session_end:0:0\"]\ntrusted_hash = \"sha256:5\"\n"
        );
        std::fs::write(&layout.config, &config).unwrap();
        assert_eq!(trust_diagnostic(&layout).level, DiagnosticLevel::Ok);
        assert!(install(&ctx).unwrap().needs_action.is_empty());
        uninstall(&ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&layout.config).unwrap(), config);
    }

    #[test]
    fn event_names_become_codex_snake_case() {
        assert_eq!(snake_case("SessionStart"), "session_start");
        assert_eq!(snake_case("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("Stop"), "stop");
    }
}
