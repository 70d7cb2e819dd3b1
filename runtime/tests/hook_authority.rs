//! The guard denies an agent's shell call that asserts an authority (`acc release …
//! --authority …`), with a reason that says to ask the user (issue 11 §2), for a real
//! client's payload shape; an ordinary release of its own claim stays allowed.

mod hook_support;

use acc_runtime::hook::authority_guard::AUTHORITY_REASON;
use hook_support::*;
use serde_json::json;

const CONVERSATION: &str = "5b0c6f2e-0000-4000-8000-0000000000a1";

fn claude(sb: &Sandbox, event: &str, extra: serde_json::Value) -> HookRun {
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
        sb.settings(acc_adapter_claude_code::adapter, &[]),
        &["claude-code", event],
        p.to_string().as_bytes(),
    )
}

fn bash(sb: &Sandbox, command: &str) -> HookRun {
    claude(
        sb,
        "PreToolUse",
        json!({"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"}),
    )
}

#[test]
fn a_shell_call_that_asserts_an_authority_is_denied_with_ask_the_user() {
    let sb = Sandbox::new();
    let start = claude(&sb, "SessionStart", json!({"source": "startup"}));
    assert_eq!(start.code, 0, "{start:?}");
    let run = bash(
        &sb,
        "acc release --claim claim_AAAAAAAAAAAAAAAAAAAAAA --authority human --reason gone",
    );
    let answer: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let out = &answer["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "{run:?}");
    assert_eq!(out["permissionDecisionReason"], AUTHORITY_REASON);
    assert!(AUTHORITY_REASON.contains("Ask the user"));
    let ok = bash(&sb, "acc release --resource 'file:src/**'");
    assert!(!ok.stdout.contains("deny"), "{ok:?}");
    assert_eq!(ok.code, 0, "{ok:?}");
}
