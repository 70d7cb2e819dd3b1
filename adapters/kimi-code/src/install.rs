//! Where Kimi Code reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Kimi Code keeps its settings in `<kimi home>/config.toml`, the kimi home being
//! `$KIMI_CODE_HOME` when set and `~/.kimi-code` otherwise. Hooks are `[[hooks]]` tables
//! with exactly `event`, `command`, an optional `matcher` and `timeout` (seconds, at most
//! 600); any other key is rejected by the client. acc writes them only inside its marked
//! block, so the rest of the user's TOML (comments included) is never rewritten; a user's
//! own `[[hooks]]` tables earlier in the file stay and acc's join the same array. User
//! skills are read from `<kimi home>/skills/<name>/SKILL.md`.
//!
//! Observed with Kimi Code 2.1.0 (npm `@moonshot-ai/kimi-code`, run on Node 24 against a
//! local model double): a config holding a user's `[[hooks]]`, other tables and acc's block
//! loads, acc's SessionStart hook runs, and the skill's description reaches the model.
//! `SessionHeartbeat` (every 60 s) and `SessionEnd` are among the client's 20 hook events;
//! neither fires in a one-prompt `-p` run.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};
use acc_sdk::hook_config::{self, FoundHandler, HookHandler};
use acc_sdk::install::{ArtifactKind, ChangeAction, Diagnostic, FileChange, InstallContext};
use acc_sdk::install_files::{parse_toml, read_optional, toml_string, write_if_changed};
use acc_sdk::install_layout::{HookFileClient, HookFileLayout, HookSpec, HookWiring};
use acc_sdk::toml_block::{
    self, ACC_BLOCK_MARKERS, BlockError, BlockState, remove_block, upsert_block, validate_toml,
};

const TIMEOUT_SECONDS: u64 = 10;
const WRITE_TOOLS: &str = "Write|Edit|Bash";

/// acc's `[[hooks]]` block in `config.toml`, and the skill tree beside it.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "kimi";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("UserPromptSubmit", TIMEOUT_SECONDS),
        HookSpec::new("SessionHeartbeat", TIMEOUT_SECONDS),
        HookSpec::new("PreToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &TomlHookBlock;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        let kimi = ctx.dir_from_env("KIMI_CODE_HOME", ".kimi-code");
        HookFileLayout::in_dir(&kimi, "config.toml")
    }
}

/// acc's `[[hooks]]` tables between acc's markers in the user's `config.toml`; the rest of
/// the file is never rewritten.
#[derive(Debug, Clone, Copy)]
struct TomlHookBlock;

impl HookWiring for TomlHookBlock {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Merge
    }

    fn check(&self, path: &Path, handlers: &[HookHandler]) -> Result<(), AdapterError> {
        let text = read_config(path)?.unwrap_or_default();
        merged(path, &text, &block_body(handlers)).map(drop)
    }

    fn install(&self, path: &Path, handlers: &[HookHandler]) -> Result<FileChange, AdapterError> {
        let text = read_config(path)?.unwrap_or_default();
        let out = merged(path, &text, &block_body(handlers))?;
        Ok(FileChange {
            action: write_if_changed(path, out.as_bytes())?,
            path: path.to_path_buf(),
        })
    }

    /// Takes acc's block out of `config.toml`; the rest of the file is untouched.
    fn uninstall(
        &self,
        path: &Path,
        _keep: &[PathBuf],
    ) -> Result<Option<FileChange>, AdapterError> {
        let Some(text) = read_config(path)? else {
            return Ok(None);
        };
        let out = remove_block(&text, ACC_BLOCK_MARKERS).map_err(|e| {
            AdapterError::new(AdapterErrorKind::MalformedUserFile, block_message(path, &e)).at(path)
        })?;
        let action = write_if_changed(path, out.as_bytes())?;
        Ok((action != ChangeAction::Unchanged).then(|| FileChange {
            path: path.to_path_buf(),
            action,
        }))
    }

    fn diagnose(&self, path: &Path, expected: &[HookHandler]) -> Vec<Diagnostic> {
        hooks_diagnostics(path, expected)
    }
}

/// The text between acc's markers.
fn block_body(handlers: &[HookHandler]) -> String {
    let mut body =
        String::from("# acc's hooks; `acc uninstall --adapter kimi-code` removes this block.\n");
    for h in handlers {
        body.push_str("[[hooks]]\n");
        body.push_str(&format!("event = {}\n", toml_string(&h.event)));
        if let Some(matcher) = &h.matcher {
            body.push_str(&format!("matcher = {}\n", toml_string(matcher)));
        }
        body.push_str(&format!("command = {}\n", toml_string(&h.command)));
        body.push_str(&format!("timeout = {}\n", h.timeout));
    }
    body
}

/// The user's config as text ("" when absent), refused when it is not valid TOML or its
/// acc markers do not form one block.
fn read_config(path: &Path) -> Result<Option<String>, AdapterError> {
    let Some(bytes) = read_optional(path)? else {
        return Ok(None);
    };
    let malformed =
        |message: String| AdapterError::new(AdapterErrorKind::MalformedUserFile, message).at(path);
    let text = String::from_utf8(bytes).map_err(|_| {
        malformed(format!(
            "{}:1:1: not valid TOML: the file is not UTF-8 text",
            path.display()
        ))
    })?;
    toml_block::inspect(&text, ACC_BLOCK_MARKERS)
        .map_err(|e| malformed(block_message(path, &e)))?;
    validate_toml(&text, path).map_err(|e| malformed(e.to_string()))?;
    Ok(Some(text))
}

fn block_message(path: &Path, error: &BlockError) -> String {
    let text = error.to_string();
    let what = text
        .split_once(": ")
        .map_or(text.as_str(), |(_, rest)| rest);
    format!(
        "{}:{}:1: broken acc block ({}): {what}",
        path.display(),
        error.line,
        error.code()
    )
}

/// The config with acc's block in place, refused when the result would not be valid TOML
/// (the user already defines `hooks` in a form an array of tables cannot extend).
fn merged(path: &Path, text: &str, body: &str) -> Result<String, AdapterError> {
    let out = upsert_block(text, ACC_BLOCK_MARKERS, body).map_err(|e| {
        AdapterError::new(AdapterErrorKind::MalformedUserFile, block_message(path, &e)).at(path)
    })?;
    validate_toml(&out, path).map_err(|e| {
        AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{}: acc's [[hooks]] tables cannot be added because the file already defines `hooks` in another form ({e}); move those hooks into [[hooks]] tables and run the command again",
                path.display()
            ),
        )
        .at(path)
    })?;
    Ok(out)
}

fn hooks_diagnostics(path: &Path, expected: &[HookHandler]) -> Vec<Diagnostic> {
    let text = match read_config(path) {
        Ok(Some(text)) => text,
        Ok(None) => {
            return vec![hook_config::error(format!(
                "{} does not exist, so no acc hook runs",
                path.display()
            ))];
        }
        Err(e) => return vec![hook_config::error(e.message)],
    };
    let found = match toml_block::inspect(&text, ACC_BLOCK_MARKERS) {
        Ok(BlockState::Present { body, .. }) => found_in_block(&body),
        _ => Vec::new(),
    };
    hook_config::diagnose_handlers(path, &found, expected)
}

/// acc's `[[hooks]]` tables, read from the block body alone.
fn found_in_block(body: &str) -> Vec<FoundHandler> {
    let Ok(table) = parse_toml(body, Path::new("block")) else {
        return Vec::new();
    };
    let Some(hooks) = table.get("hooks").and_then(|h| h.as_array()) else {
        return Vec::new();
    };
    hooks
        .iter()
        .enumerate()
        .filter_map(|(i, hook)| {
            Some(FoundHandler {
                event: hook.get("event")?.as_str()?.to_owned(),
                group: i,
                index: 0,
                command: hook.get("command")?.as_str()?.to_owned(),
                matcher: hook
                    .get("matcher")
                    .and_then(|m| m.as_str())
                    .map(str::to_owned),
                timeout: hook.get("timeout").and_then(|t| t.as_u64()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::DiagnosticLevel;
    use acc_sdk::install_layout::{doctor, install, plan, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn kimi_code_home_moves_everything() {
        assert_eq!(
            layout_paths(&Install, &[("KIMI_CODE_HOME", "/k")]),
            ["/k/config.toml", "/k/skills/acc"]
        );
        assert_eq!(
            layout_paths(&Install, &[]),
            [
                "/home/u/.kimi-code/config.toml",
                "/home/u/.kimi-code/skills/acc"
            ]
        );
    }

    #[test]
    fn the_block_holds_only_keys_kimi_accepts() {
        let body = block_body(&Install.handlers(&ctx(Path::new("/h"), &[])));
        let table = parse_toml(&body, Path::new("b")).unwrap();
        let hooks = table["hooks"].as_array().unwrap();
        assert_eq!(hooks.len(), 6);
        for hook in hooks {
            for key in hook.as_object().unwrap().keys() {
                assert!(
                    ["event", "command", "matcher", "timeout"].contains(&key.as_str()),
                    "{key}"
                );
            }
            assert_eq!(hook["timeout"], 10);
        }
        assert_eq!(hooks[3]["event"], "PreToolUse");
        assert_eq!(hooks[3]["matcher"], WRITE_TOOLS);
        assert_eq!(
            hooks[0]["command"],
            "\"/opt/acc/bin/acc-hook\" kimi-code SessionStart"
        );
    }

    #[test]
    fn only_the_block_changes_and_uninstall_gives_the_file_back() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".kimi-code/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let original = "# my settings\r\nmodel = \"k2\"  # pinned\r\n[ui]\r\ntheme = \"dark\"";
        std::fs::write(&config, original).unwrap();
        install(&Install, &ctx).unwrap();
        let installed = std::fs::read_to_string(&config).unwrap();
        assert!(installed.starts_with(original));
        assert!(installed.contains("\r\n[[hooks]]\r\n"));
        assert!(
            doctor(&Install, &ctx)
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Ok && d.message.contains("6 acc hook(s)"))
        );
        uninstall(&Install, &ctx, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    }

    #[test]
    fn broken_blocks_and_incompatible_hooks_are_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".kimi-code/config.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let broken = format!("a = 1\n{}\n[[hooks]]\n", ACC_BLOCK_MARKERS.begin);
        std::fs::write(&config, &broken).unwrap();
        let err = plan(&Install, &ctx).unwrap_err();
        assert_eq!(err.kind, AdapterErrorKind::MalformedUserFile);
        assert!(
            err.message
                .starts_with(&format!("{}:2:1: broken acc block", config.display())),
            "{}",
            err.message
        );
        assert!(install(&Install, &ctx).is_err());
        assert_eq!(std::fs::read_to_string(&config).unwrap(), broken);
        std::fs::write(&config, "hooks = \"nope\"\n").unwrap();
        assert_eq!(
            plan(&Install, &ctx).unwrap_err().kind,
            AdapterErrorKind::Conflict
        );
        assert!(!dir.path().join(".kimi-code/skills").exists());
    }
}
