//! Where Claude Code reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Claude Code reads user hooks from `<config dir>/settings.json` and user skills from
//! `<config dir>/skills/<name>/SKILL.md`, where the config dir is `$CLAUDE_CONFIG_DIR` when
//! set and `~/.claude` otherwise (both observed with Claude Code 2.1.332: a skill under
//! `~/.claude/skills` is not read once `CLAUDE_CONFIG_DIR` points elsewhere). Hook timeouts
//! are in seconds.

/// Every tool that writes a file or runs a shell.
const WRITE_TOOLS: &str = "Write|Edit|MultiEdit|NotebookEdit|Bash";

acc_sdk::claude_shaped_install! {
    /// acc's handlers merged into `settings.json`, and the skill tree beside it.
    pub struct Install {
        adapter: crate::ID,
        command: "claude",
        write_tools: WRITE_TOOLS,
        dir: ("CLAUDE_CONFIG_DIR", ".claude"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::ChangeAction;
    use acc_sdk::install_layout::HookFileClient;
    use acc_sdk::install_layout::{doctor, install, plan, uninstall};
    use acc_sdk::testing::install::{assert_probe_is_the_manifests, context as ctx, layout_paths};
    use std::path::Path;

    #[test]
    fn the_probe_is_the_manifests() {
        assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
    }

    #[test]
    fn config_dir_follows_claude_config_dir() {
        let plain = [
            "/home/u/.claude/settings.json",
            "/home/u/.claude/skills/acc",
        ];
        assert_eq!(layout_paths(&Install, &[]), plain);
        assert_eq!(
            layout_paths(&Install, &[("CLAUDE_CONFIG_DIR", "/cfg/claude")]),
            ["/cfg/claude/settings.json", "/cfg/claude/skills/acc"]
        );
        assert_eq!(
            layout_paths(&Install, &[("CLAUDE_CONFIG_DIR", "rel")]),
            plain,
            "a relative config dir is ignored"
        );
    }

    #[test]
    fn hooks_cover_the_lifecycle_and_every_write_tool_in_seconds() {
        let hs = Install.handlers(&ctx(Path::new("/h"), &[]));
        let events: Vec<&str> = hs.iter().map(|h| h.event.as_str()).collect();
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
                "SubagentStop",
                "Notification"
            ]
        );
        assert!(hs.iter().all(|h| h.timeout == 10 && h.name.is_none()));
        assert_eq!(hs[2].matcher.as_deref(), Some(WRITE_TOOLS));
        assert_eq!(hs[8].matcher.as_deref(), Some("idle_prompt"));
        assert_eq!(
            hs[0].command,
            "\"/opt/acc/bin/acc-hook\" claude-code SessionStart"
        );
    }

    #[test]
    fn plan_names_what_install_writes_and_uninstall_takes_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        let plan = plan(&Install, &ctx).unwrap();
        let report = install(&Install, &ctx).unwrap();
        let written: Vec<_> = report.changes.iter().map(|c| c.path.clone()).collect();
        let planned: Vec<_> = plan.artifacts.iter().map(|a| a.path.clone()).collect();
        assert_eq!(written, planned);
        assert!(
            report
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Created)
        );
        let again = install(&Install, &ctx).unwrap();
        assert!(
            again
                .changes
                .iter()
                .all(|c| c.action == ChangeAction::Unchanged)
        );
        assert!(
            doctor(&Install, &ctx)
                .diagnostics
                .iter()
                .any(|d| d.message.contains("9 acc hook(s)"))
        );
        uninstall(&Install, &ctx, &[]).unwrap();
        let settings = std::fs::read_to_string(dir.path().join(".claude/settings.json")).unwrap();
        assert_eq!(settings, "{}\n");
        assert!(!dir.path().join(".claude/skills/acc").exists());
    }
}
