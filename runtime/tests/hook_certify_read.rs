//! `ACC_CERTIFY_DENY_READ` (set only by `acc-certify record`'s `before-read` scenario) makes
//! `beforeTool` refuse a read of the one planted file with the adapter's deny outcome;
//! without it, the same read is allowed as before.

mod hook_support;

use acc_runtime::hook::certify_read::DENY_READ_REASON;
use acc_runtime::hook::hook_env::CERTIFY_DENY_READ_VAR;
use hook_support::*;
use serde_json::json;

const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-0000000000b7";

fn claude(sb: &Sandbox, env: &[(&str, &str)], event: &str, extra: serde_json::Value) -> HookRun {
    let mut p = json!({
        "session_id": CONVERSATION,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": sb.ws().display().to_string(),
        "hook_event_name": event,
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    run_hook(
        sb.settings(acc_adapter_claude_code::adapter, env),
        &["claude-code", event],
        p.to_string().as_bytes(),
    )
}

fn read(sb: &Sandbox, env: &[(&str, &str)], file: &str) -> HookRun {
    let path = sb.ws().join(file).display().to_string();
    claude(
        sb,
        env,
        "PreToolUse",
        json!({"tool_name": "Read", "tool_input": {"file_path": path}, "tool_use_id": "t1"}),
    )
}

fn denied(run: &HookRun) -> bool {
    serde_json::from_str::<serde_json::Value>(run.stdout.trim())
        .is_ok_and(|a| a["hookSpecificOutput"]["permissionDecision"] == "deny")
}

#[test]
fn the_planted_file_is_refused_only_while_the_recorder_names_it() {
    let sb = Sandbox::new();
    let env = [(CERTIFY_DENY_READ_VAR, "secret.txt")];
    let start = claude(&sb, &env, "SessionStart", json!({"source": "startup"}));
    assert_eq!(start.code, 0, "{start:?}");

    let refused = read(&sb, &env, "secret.txt");
    assert!(denied(&refused), "{refused:?}");
    let answer: serde_json::Value = serde_json::from_str(refused.stdout.trim()).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecisionReason"],
        DENY_READ_REASON
    );

    let control = read(&sb, &env, "open.txt");
    assert!(!denied(&control), "{control:?}");
    assert_eq!(control.code, 0, "{control:?}");

    let unset = read(&sb, &[], "secret.txt");
    assert!(!denied(&unset), "{unset:?}");
    assert_eq!(unset.code, 0, "{unset:?}");
}

#[test]
fn a_shell_command_that_mentions_the_file_is_not_a_read_refusal() {
    let sb = Sandbox::new();
    let env = [(CERTIFY_DENY_READ_VAR, "secret.txt")];
    claude(&sb, &env, "SessionStart", json!({"source": "startup"}));
    let run = claude(
        &sb,
        &env,
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": "cat secret.txt"}, "tool_use_id": "t2"}),
    );
    assert!(!denied(&run), "{run:?}");
}
