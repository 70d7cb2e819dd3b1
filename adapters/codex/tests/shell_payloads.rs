//! Codex's shell tool, through its own payload shape and normaliser, against the table every
//! shell-capable adapter shares: commands are read where they run (the payload's cwd).

use acc_adapter_codex::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::event::{Targets, ToolClass};
use acc_sdk::testing::shell::{assert_shell_reading, shell_call_targets};
use serde_json::{Value, json};

fn shell_targets(cwd: &str, command: Value) -> Targets {
    let payload = json!({"session_id": "c-1", "hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Bash", "tool_input": {"command": command}});
    shell_call_targets(&Behaviour, &payload, &command.to_string())
}

#[test]
fn shell_commands_are_read_where_they_run() {
    let dir = tempfile::tempdir().unwrap();
    assert_shell_reading(dir.path(), |cwd, command| {
        shell_targets(cwd, json!(command))
    });
}

#[test]
fn argv_commands_are_read_word_by_word() {
    let dir = tempfile::tempdir().unwrap();
    // Codex may send `["bash", "-lc", script]`: the script is read as bash would run it.
    assert_shell_reading(dir.path(), |cwd, command| {
        shell_targets(cwd, json!(["bash", "-lc", command]))
    });
    let cwd = dir.path().canonicalize().unwrap().display().to_string();
    assert_eq!(
        shell_targets(&cwd, json!(["rm", "-rf", "src/*"])),
        // Each argv word is passed as is: no glob is expanded in it.
        Targets::Paths(vec!["src/*/**".into()])
    );
    assert!(matches!(
        shell_targets(&cwd, json!(["python3", "-c", "open('src/x','w')"])),
        Targets::Unreadable { reason } if reason.contains("python3 -c")
    ));
}

fn patch_targets(cwd: &str, tool: &str, input: Value) -> (ToolClass, Targets) {
    let payload = json!({"session_id": "c-1", "hook_event_name": "PreToolUse", "cwd": cwd,
        "tool_name": tool, "tool_input": input});
    let tool = Behaviour
        .normalize_hook(&payload, &[])
        .unwrap()
        .tool
        .unwrap();
    (tool.class, tool.targets)
}

#[test]
fn apply_patch_is_read_by_codexs_grammar() {
    let moved = "*** Begin Patch\n  *** Update File: src/a.rs\n*** Move to: elsewhere.rs\n@@\n-a\n+b\n*** End Patch";
    let both = Targets::Paths(vec!["src/a.rs".into(), "elsewhere.rs".into()]);
    assert_eq!(
        patch_targets("/w", "apply_patch", json!({"command": moved})),
        (ToolClass::Write, both.clone())
    );
    let wrapped = format!("<<'EOF'\n{moved}\nEOF\n");
    assert_eq!(
        patch_targets("/w", "apply_patch", json!({"command": wrapped})),
        (ToolClass::Write, both.clone())
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let cwd = dir.path().display().to_string();
    let through_shell = format!("cd sub && apply_patch <<'EOF'\n{moved}\nEOF\n");
    assert_eq!(
        patch_targets(&cwd, "Bash", json!({"command": through_shell})),
        (
            ToolClass::Shell,
            Targets::Paths(vec!["sub/src/a.rs".into(), "sub/elsewhere.rs".into()])
        )
    );
    let argv = json!(["apply_patch", moved]);
    assert_eq!(
        patch_targets("/w", "Bash", json!({"command": argv})),
        (ToolClass::Shell, both)
    );
    // What Codex's parser refuses is refused, with the reason.
    for refused in [
        "*** Begin Patch\n*** Update File: src/a.rs\n*** End Patch",
        "*** Begin Patch\n*** Add File: src/a.rs\n+a",
        "*** Begin Patch\n*** Rename File: src/a.rs\n*** End Patch",
    ] {
        let (class, targets) = patch_targets("/w", "apply_patch", json!({"command": refused}));
        assert_eq!(class, ToolClass::Write);
        assert!(
            matches!(&targets, Targets::Unreadable { reason } if reason.contains("apply_patch")),
            "{refused:?}: {targets:?}"
        );
    }
}
