//! acc's plugin run by Node as OpenCode runs it: a refused tool call throws an error whose
//! message, which OpenCode hands the model as the call's result, says acc blocked it.
//! Needs `node` on PATH (OpenCode's plugins are JavaScript); without it the test says so and
//! passes, and the recorder's guard scenarios judge the same text from the real client.

use std::path::Path;
use std::process::Command;

use acc_adapter_opencode::PLUGIN;
use serde_json::json;

const REASON: &str = "file:src/x is claimed by peer (session session_2)";

/// Runs `tool.execute.before` of the plugin whose `ToolExecuteBefore` command is `command`;
/// returns what the driver printed: `threw: <message>` or `ran: <args>`.
fn before_tool(dir: &Path, command: &str) -> String {
    let hooks = json!({"ToolExecuteBefore": command});
    let plugin = PLUGIN
        .replacen("__ACC_HOOKS__", &hooks.to_string(), 1)
        .replacen("__ACC_TIMEOUT_MS__", "10000", 1);
    std::fs::write(dir.join("acc.mjs"), plugin).unwrap();
    let driver = r#"
import { AccPlugin } from "./acc.mjs";
const hooks = await AccPlugin({ directory: "/w" });
const output = { args: { filePath: "/w/src/x", content: "x" } };
try {
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_1", callID: "call_1" }, output);
  console.log(`ran: ${JSON.stringify(output.args)}`);
} catch (error) {
  console.log(`threw: ${error.message}`);
}
"#;
    std::fs::write(dir.join("driver.mjs"), driver).unwrap();
    let out = Command::new("node")
        .arg(dir.join("driver.mjs"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn node_missing() -> bool {
    if Command::new("node").arg("--version").output().is_ok() {
        return false;
    }
    eprintln!("node is not on PATH: the plugin's refusal is not run here");
    true
}

#[test]
fn a_refused_call_throws_with_acc_s_marker_and_the_reason() {
    if node_missing() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let deny = json!({"decision": "deny", "reason": REASON}).to_string();
    let command = format!("cat >/dev/null; printf '%s' '{deny}'");
    assert_eq!(
        before_tool(dir.path(), &command),
        format!("threw: blocked by acc: {REASON}")
    );
}

#[test]
fn silence_or_a_failing_hook_lets_the_call_run_unchanged() {
    if node_missing() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unchanged = r#"ran: {"filePath":"/w/src/x","content":"x"}"#;
    assert_eq!(before_tool(dir.path(), "cat >/dev/null"), unchanged);
    assert_eq!(before_tool(dir.path(), "cat >/dev/null; exit 3"), unchanged);
    assert_eq!(
        before_tool(dir.path(), "cat >/dev/null; printf 'not json'"),
        unchanged
    );
}
