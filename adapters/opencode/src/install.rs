//! Where OpenCode loads acc's plugin, and how acc writes, checks and removes it.
//!
//! OpenCode (1.18.33) runs no hook commands. It loads every `{plugin,plugins}/*.{ts,js}` of
//! its global config directory, `$XDG_CONFIG_HOME/opencode` (else `~/.config/opencode`),
//! at start, with no entry in `opencode.json` needed; so acc writes one file of its own,
//! `plugin/acc.js` ([`PLUGIN`]: the plugin text with acc-hook's command for each event),
//! and never touches the user's `opencode.json`/`opencode.jsonc` or any other plugin.
//! User skills are read from `<config dir>/skills/<name>/SKILL.md`.

use std::path::{Path, PathBuf};

use acc_sdk::adapter::{AdapterError, AdapterErrorKind};
use acc_sdk::hook_config::{self, FoundHandler, HookHandler};
use acc_sdk::hook_owner::HookOwner;
use acc_sdk::install::{ArtifactKind, Diagnostic, FileChange, InstallContext};
use acc_sdk::install_files::{read_optional, uninstall_file_tree, write_if_changed};
use acc_sdk::install_layout::{HookFileClient, HookFileLayout, HookSpec, HookWiring};
use serde_json::{Map, Value};

/// The plugin's text; [`render`] fills in the commands and the timeout.
pub const PLUGIN: &str = include_str!("plugin.js");
const HOOKS_SLOT: &str = "__ACC_HOOKS__";
const TIMEOUT_SLOT: &str = "__ACC_TIMEOUT_MS__";
/// The line holding the commands, read back by doctor and by the ownership check.
const HOOKS_LINE: &str = "const ACC_HOOKS = ";
/// The plugin's first line: a file starting otherwise is not acc's.
const FIRST_LINE: &str = "// acc (agents-can-communicate):";
const TIMEOUT_SECONDS: u64 = 10;

/// acc's plugin file, and the skill tree beside it.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "opencode";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("ChatMessage", TIMEOUT_SECONDS),
        HookSpec::new("ToolExecuteBefore", TIMEOUT_SECONDS),
        HookSpec::new("ToolExecuteAfter", TIMEOUT_SECONDS),
        HookSpec::new("SessionIdle", TIMEOUT_SECONDS),
        HookSpec::new("Heartbeat", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &PluginFile;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        let config = match ctx.var("XDG_CONFIG_HOME") {
            Some(v) if Path::new(v).is_absolute() => PathBuf::from(v).join("opencode"),
            _ => ctx.home.join(".config/opencode"),
        };
        HookFileLayout {
            hooks: config.join("plugin").join(plugin_file_name(ctx)),
            skill: config.join("skills").join(acc_sdk::skill::SKILL_NAME),
        }
    }
}

/// `acc.js`, or for an install with a data home of its own `acc-<hash of it>.js`: each
/// acc install on the machine runs its own plugin, as each adds its own hook entries in
/// other clients, and one never overwrites or removes another's.
fn plugin_file_name(ctx: &InstallContext) -> String {
    match &ctx.pinned_data_home {
        None => "acc.js".to_owned(),
        Some(home) => {
            // FNV-1a: stable across builds and platforms, which std's hasher is not.
            let hash = home
                .as_os_str()
                .as_encoded_bytes()
                .iter()
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
                });
            format!("acc-{hash:016x}.js")
        }
    }
}

/// The plugin text for `handlers`.
pub fn render(handlers: &[HookHandler]) -> String {
    let hooks: Map<String, Value> = handlers
        .iter()
        .map(|h| (h.event.clone(), Value::from(h.command.clone())))
        .collect();
    let timeout = handlers
        .iter()
        .map(|h| h.timeout)
        .max()
        .unwrap_or(TIMEOUT_SECONDS);
    PLUGIN
        .replacen(HOOKS_SLOT, &Value::Object(hooks).to_string(), 1)
        .replacen(TIMEOUT_SLOT, &(timeout * 1000).to_string(), 1)
}

/// acc's plugin, a file acc owns whole.
#[derive(Debug, Clone, Copy)]
struct PluginFile;

impl HookWiring for PluginFile {
    fn kind(&self) -> ArtifactKind {
        ArtifactKind::Tree
    }

    fn check(
        &self,
        path: &Path,
        _handlers: &[HookHandler],
        _owner: &HookOwner,
    ) -> Result<(), AdapterError> {
        match read_plugin(path)? {
            None | Some(Plugin::Accs(_)) => Ok(()),
            Some(Plugin::Foreign) => Err(AdapterError::new(
                AdapterErrorKind::Conflict,
                format!(
                    "{} exists and was not written by acc; move it aside and run the command again",
                    path.display()
                ),
            )
            .at(path)),
        }
    }

    fn install(
        &self,
        path: &Path,
        handlers: &[HookHandler],
        owner: &HookOwner,
    ) -> Result<FileChange, AdapterError> {
        self.check(path, handlers, owner)?;
        Ok(FileChange {
            action: write_if_changed(path, render(handlers).as_bytes())?,
            path: path.to_path_buf(),
        })
    }

    /// A plugin that is not acc's (any more) stays, and is reported `Kept`.
    fn uninstall(
        &self,
        path: &Path,
        keep: &[PathBuf],
        _owner: &HookOwner,
    ) -> Result<Option<FileChange>, AdapterError> {
        match read_plugin(path)? {
            None => Ok(None),
            Some(Plugin::Accs(_)) => uninstall_file_tree(path, keep),
            Some(Plugin::Foreign) => Ok(Some(FileChange {
                path: path.to_path_buf(),
                action: acc_sdk::install::ChangeAction::Kept,
            })),
        }
    }

    fn diagnose(
        &self,
        path: &Path,
        expected: &[HookHandler],
        owner: &HookOwner,
    ) -> Vec<Diagnostic> {
        match read_plugin(path) {
            Ok(Some(Plugin::Accs(found))) => {
                hook_config::diagnose_handlers(path, &found, expected, owner)
            }
            Ok(Some(Plugin::Foreign)) => vec![hook_config::error(format!(
                "{} was not written by acc, so no acc hook runs",
                path.display()
            ))],
            Ok(None) => vec![hook_config::error(format!(
                "{} does not exist, so no acc hook runs",
                path.display()
            ))],
            Err(e) => vec![hook_config::error(e.message)],
        }
    }
}

enum Plugin {
    /// acc's, with the commands it runs.
    Accs(Vec<FoundHandler>),
    Foreign,
}

fn read_plugin(path: &Path) -> Result<Option<Plugin>, AdapterError> {
    let Some(bytes) = read_optional(path)? else {
        return Ok(None);
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Ok(Some(Plugin::Foreign));
    };
    if !text.starts_with(FIRST_LINE) {
        return Ok(Some(Plugin::Foreign));
    }
    let hooks = text
        .lines()
        .find_map(|l| l.strip_prefix(HOOKS_LINE))
        .and_then(|l| l.strip_suffix(';'))
        .and_then(|l| serde_json::from_str::<Map<String, Value>>(l).ok());
    let Some(hooks) = hooks else {
        return Ok(Some(Plugin::Foreign));
    };
    let found = hooks
        .iter()
        .enumerate()
        .filter_map(|(group, (event, command))| {
            Some(FoundHandler {
                event: event.clone(),
                group,
                index: 0,
                command: command.as_str()?.to_owned(),
                matcher: None,
                timeout: Some(TIMEOUT_SECONDS),
            })
        })
        .collect();
    Ok(Some(Plugin::Accs(found)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::ClientEvent;
    use acc_sdk::install::{ChangeAction, DiagnosticLevel};
    use acc_sdk::install_layout::{doctor, install, plan, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn every_event_the_plugin_sends_has_its_command() {
        let mut events: Vec<&str> = Install::HOOKS.iter().map(|h| h.event).collect();
        events.sort_unstable();
        let mut all: Vec<&str> = ClientEvent::ALL.iter().map(|e| e.name()).collect();
        all.sort_unstable();
        assert_eq!(events, all);
        for event in ClientEvent::ALL {
            assert!(
                PLUGIN.contains(&format!("\"{}\"", event.name())),
                "the plugin never sends {}",
                event.name()
            );
        }
    }

    #[test]
    fn xdg_config_home_moves_everything() {
        assert_eq!(
            layout_paths(&Install, &[("XDG_CONFIG_HOME", "/x")]),
            ["/x/opencode/plugin/acc.js", "/x/opencode/skills/acc"]
        );
        let mut pinned = ctx(Path::new("/home/u"), &[]);
        pinned.pinned_data_home = Some(PathBuf::from("/data/one"));
        let one = Install.layout(&pinned).hooks;
        pinned.pinned_data_home = Some(PathBuf::from("/data/two"));
        let two = Install.layout(&pinned).hooks;
        assert_ne!(one, two, "each data home's install has its own plugin");
        assert_eq!(
            one.parent(),
            Some(Path::new("/home/u/.config/opencode/plugin"))
        );
        assert!(one.to_str().unwrap().ends_with(".js"));
        assert_eq!(
            layout_paths(&Install, &[("XDG_CONFIG_HOME", "relative")]),
            [
                "/home/u/.config/opencode/plugin/acc.js",
                "/home/u/.config/opencode/skills/acc"
            ]
        );
    }

    #[test]
    fn the_plugin_runs_each_events_command_and_nothing_is_left_to_fill() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&Install, &ctx).unwrap();
        let text =
            std::fs::read_to_string(dir.path().join(".config/opencode/plugin/acc.js")).unwrap();
        assert!(!text.contains("__ACC_"), "{text}");
        assert!(text.contains("const TIMEOUT_MS = 10000;"));
        let Some(Plugin::Accs(found)) =
            read_plugin(&dir.path().join(".config/opencode/plugin/acc.js")).unwrap()
        else {
            panic!("not read back as acc's")
        };
        assert_eq!(found.len(), 7);
        let start = found.iter().find(|f| f.event == "SessionStart").unwrap();
        assert_eq!(
            start.command,
            "\"/opt/acc/bin/acc-hook\" opencode SessionStart"
        );
        assert!(
            doctor(&Install, &ctx)
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Ok && d.message.contains("7 acc hook(s)")),
            "{:?}",
            doctor(&Install, &ctx)
        );
    }

    #[test]
    fn install_is_idempotent_and_uninstall_leaves_the_users_files() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let config = dir.path().join(".config/opencode");
        std::fs::create_dir_all(config.join("plugin")).unwrap();
        let user_config = "{\n  // mine\n  \"plugin\": [\"my-plugin\"],\r\n  \"model\": \"a/b\"\n}";
        let user_plugin = "export const Mine = async () => ({})\n";
        std::fs::write(config.join("opencode.jsonc"), user_config).unwrap();
        std::fs::write(config.join("plugin/mine.js"), user_plugin).unwrap();
        install(&Install, &ctx).unwrap();
        let again = install(&Install, &ctx).unwrap();
        assert!(
            again
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Unchanged)
        );
        uninstall(&Install, &ctx, &[]).unwrap();
        assert!(!config.join("plugin/acc.js").exists());
        assert!(!config.join("skills/acc").exists());
        assert_eq!(
            std::fs::read_to_string(config.join("opencode.jsonc")).unwrap(),
            user_config
        );
        assert_eq!(
            std::fs::read_to_string(config.join("plugin/mine.js")).unwrap(),
            user_plugin
        );
    }

    #[test]
    fn a_plugin_acc_did_not_write_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let path = dir.path().join(".config/opencode/plugin/acc.js");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let theirs = "// someone's acc.js\nexport const X = async () => ({})\n";
        std::fs::write(&path, theirs).unwrap();
        let err = plan(&Install, &ctx).unwrap_err();
        assert_eq!(err.kind, AdapterErrorKind::Conflict);
        assert!(install(&Install, &ctx).is_err());
        assert!(!dir.path().join(".config/opencode/skills").exists());
        let report = uninstall(&Install, &ctx, &[]).unwrap();
        assert!(
            report
                .changes
                .iter()
                .any(|c| c.path == path && c.action == ChangeAction::Kept)
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    }

    #[test]
    fn a_plugin_edited_since_install_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let path = dir.path().join(".config/opencode/plugin/acc.js");
        install(&Install, &ctx).unwrap();
        uninstall(&Install, &ctx, std::slice::from_ref(&path)).unwrap();
        assert!(path.exists());
    }
}
