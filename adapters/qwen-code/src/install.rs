//! Where Qwen Code reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Qwen Code keeps its user settings in `<qwen dir>/settings.json`, where the qwen dir is
//! `$QWEN_HOME` when set (the directory itself, not a parent of `.qwen`) and `~/.qwen`
//! otherwise; user skills are read from `<qwen dir>/skills/<name>/SKILL.md`. Hooks go under
//! `hooks.<Event>` as matcher groups, Claude Code's layout. Command-hook timeouts are in
//! seconds (0.24.4 still takes a large value as legacy milliseconds, with a warning).

/// Every tool that writes a file or runs a shell (the matcher is a regular expression over
/// the tool's runtime id).
const WRITE_TOOLS: &str = "write_file|edit|notebook_edit|run_shell_command";

acc_sdk::claude_shaped_install! {
    /// acc's handlers merged into `settings.json`, and the skill tree beside it.
    pub struct Install {
        adapter: crate::ID,
        command: "qwen",
        write_tools: WRITE_TOOLS,
        dir: ("QWEN_HOME", ".qwen"),
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
    fn qwen_home_is_the_settings_directory() {
        assert_eq!(
            layout_paths(&Install, &[]),
            ["/home/u/.qwen/settings.json", "/home/u/.qwen/skills/acc"]
        );
        assert_eq!(
            layout_paths(&Install, &[("QWEN_HOME", "/iso/q")]),
            ["/iso/q/settings.json", "/iso/q/skills/acc"]
        );
    }

    #[test]
    fn handlers_are_matcher_groups_timed_in_seconds() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = ctx(dir.path(), &[]);
        install(&Install, &ctx).unwrap();
        let settings: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join(".qwen/settings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            settings["hooks"]["PreToolUse"],
            json!([{
                "matcher": WRITE_TOOLS,
                "hooks": [{
                    "type": "command",
                    "command": "\"/opt/acc/bin/acc-hook\" qwen-code PreToolUse",
                    "timeout": 10
                }]
            }])
        );
        let events: Vec<&String> = settings["hooks"].as_object().unwrap().keys().collect();
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
    }
}
