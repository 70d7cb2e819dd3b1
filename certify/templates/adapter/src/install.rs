//! Where Example CLI reads acc's wiring, and how acc writes, checks and removes it: a
//! Claude-shaped hook file acc owns whole (`~/.example/hooks/acc.json`), and acc's skill
//! beside it. Replace the layout with the client's own; a client whose hooks live in the
//! user's own settings file takes `MergedJsonHooks` instead, and a shape of its own a
//! `HookWiring` of the adapter's.

use std::path::Path;

use acc_sdk::install::InstallContext;
use acc_sdk::install_layout::{
    HookFileClient, HookFileLayout, HookSpec, HookWiring, OwnedJsonHooks,
};

const TIMEOUT_SECONDS: u64 = 10;
const WRITE_TOOLS: &str = "Write|Edit|Bash";

pub struct Install;

impl HookFileClient for Install {
    const ADAPTER_ID: &'static str = crate::ID;
    const COMMAND: &'static str = "example";
    const HOOKS: &'static [HookSpec] = &[
        HookSpec::new("SessionStart", TIMEOUT_SECONDS),
        HookSpec::new("UserPromptSubmit", TIMEOUT_SECONDS),
        HookSpec::new("PreToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        HookSpec::new("PostToolUse", TIMEOUT_SECONDS).matching(WRITE_TOOLS),
        HookSpec::new("Stop", TIMEOUT_SECONDS),
        HookSpec::new("SessionEnd", TIMEOUT_SECONDS),
    ];
    const WIRING: &'static dyn HookWiring = &OwnedJsonHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(
            &ctx.dir_from_env("EXAMPLE_HOME", ".example"),
            Path::new("hooks").join("acc.json"),
        )
    }
}
