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

use acc_sdk::hook_config::HookHandler;
use acc_sdk::install::InstallContext;
use acc_sdk::install_layout::{
    HookFileClient, HookFileLayout, HookSpec, HookWiring, MergedJsonHooks,
};

const TIMEOUT_MILLISECONDS: u64 = 10_000;
/// Gemini CLI's file-writing and shell tools.
const WRITE_TOOLS: &str = "write_file|replace|run_shell_command";

/// acc's named handlers merged into `settings.json`, and the skill tree beside it.
pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "gemini";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_MILLISECONDS),
        HookSpec::new("BeforeAgent", TIMEOUT_MILLISECONDS),
        HookSpec::new("BeforeTool", TIMEOUT_MILLISECONDS).matching(WRITE_TOOLS),
        // After a shell call: did it change a peer's claimed files anyway?
        HookSpec::new("AfterTool", TIMEOUT_MILLISECONDS).matching(WRITE_TOOLS),
        HookSpec::new("AfterAgent", TIMEOUT_MILLISECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_MILLISECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &MergedJsonHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        let gemini = ctx.dir_from_env("GEMINI_CLI_HOME", "").join(".gemini");
        HookFileLayout::in_dir(&gemini, "settings.json")
    }

    /// Gemini CLI names every handler; acc's are `acc-<Event>`.
    fn handlers(&self, ctx: &InstallContext) -> Vec<HookHandler> {
        Self::HOOKS
            .iter()
            .map(|spec| {
                spec.handler(ctx, Self::ADAPTER_ID)
                    .with_name(format!("acc-{}", spec.event))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install_layout::install;
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};
    use serde_json::{Value, json};

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn gemini_cli_home_holds_the_dot_gemini_directory() {
        assert_eq!(
            layout_paths(&Install, &[]),
            [
                "/home/u/.gemini/settings.json",
                "/home/u/.gemini/skills/acc"
            ]
        );
        assert_eq!(
            layout_paths(&Install, &[("GEMINI_CLI_HOME", "/iso")]),
            ["/iso/.gemini/settings.json", "/iso/.gemini/skills/acc"]
        );
    }

    #[test]
    fn handlers_are_named_and_timed_in_milliseconds() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&Install, &ctx).unwrap();
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
                "AfterTool",
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
