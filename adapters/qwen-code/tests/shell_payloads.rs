//! Qwen Code's shell tool, through its own payload shape and normaliser, against the table
//! every shell-capable adapter shares: commands are read where they run (the payload's cwd).

use acc_adapter_qwen_code::Behaviour;
use acc_sdk::event::Targets;
use acc_sdk::testing::shell::{assert_shell_reading, shell_call_targets};
use serde_json::{Value, json};

fn shell_targets(cwd: &str, command: Value) -> Targets {
    let payload = json!({"session_id": "s-1", "hook_event_name": "PreToolUse", "cwd": cwd,
        "tool_name": "run_shell_command", "tool_input": {"command": command}});
    shell_call_targets(&Behaviour, &payload, &command.to_string())
}

#[test]
fn shell_commands_are_read_where_they_run() {
    let dir = tempfile::tempdir().unwrap();
    assert_shell_reading(dir.path(), |cwd, command| {
        shell_targets(cwd, json!(command))
    });
}
