//! The hook-wiring test: read back every hook command install wrote into each client's
//! config, check that it is absolute and runs an executable `acc-hook` for the right
//! adapter and event, and run the SessionStart one exactly as written (`sh -c`, no PATH)
//! with that client's SessionStart payload in a sandboxed home. Run what install wrote, not
//! what we meant to write.

#[path = "install_support/mod.rs"]
mod support;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use acc_sdk::hook_command::{HookCommand, runs_acc_hook};
use acc_sdk::hook_config;
use acc_sdk::install_files::parse_toml;
use serde_json::Value;
use support::{ADAPTERS, Sandbox, fixtures};

/// `(event, command)` for every acc hook in the file the client reads.
fn written_hooks(sandbox: &Sandbox, adapter: &str) -> Vec<(String, String)> {
    let home = &sandbox.home;
    let json = |relative: &str| -> Value {
        serde_json::from_slice(&std::fs::read(home.join(relative)).unwrap()).unwrap()
    };
    let claude_shaped = |relative: &str| {
        hook_config::find_all(&json(relative))
            .into_iter()
            .map(|f| (f.event, f.command))
            .collect()
    };
    match adapter {
        "claude-code" => claude_shaped(".claude/settings.json"),
        "codex" => claude_shaped(".codex/hooks.json"),
        "gemini-cli" => claude_shaped(".gemini/settings.json"),
        "qwen-code" => claude_shaped(".qwen/settings.json"),
        "grok" => claude_shaped(".grok/hooks/acc.json"),
        "opencode" => {
            support::opencode_plugin_hooks(&support::opencode_plugin(home, &sandbox.data))
        }
        "copilot" => json(".copilot/hooks/acc.json")["hooks"]
            .as_object()
            .unwrap()
            .iter()
            .flat_map(|(event, entries)| {
                entries
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |e| (event.clone(), e["bash"].as_str().unwrap().to_owned()))
            })
            .collect(),
        "antigravity" => json(".gemini/config/hooks.json")["acc"]
            .as_object()
            .unwrap()
            .iter()
            .flat_map(|(event, handlers)| {
                handlers
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |h| (event.clone(), h["command"].as_str().unwrap().to_owned()))
            })
            .collect(),
        "kimi-code" => {
            let path = home.join(".kimi-code/config.toml");
            let text = std::fs::read_to_string(&path).unwrap();
            parse_toml(&text, &path).unwrap()["hooks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|h| runs_acc_hook(h["command"].as_str().unwrap()))
                .map(|h| {
                    (
                        h["event"].as_str().unwrap().to_owned(),
                        h["command"].as_str().unwrap().to_owned(),
                    )
                })
                .collect()
        }
        other => panic!("unknown adapter {other}"),
    }
}

/// A real SessionStart payload of the client (from `fixtures/payloads/`), or, for clients
/// with no captured payload here, the shape their adapter reads, pointed at the sandbox.
fn session_start_payload(sandbox: &Sandbox, adapter: &str) -> String {
    let captured = |relative: &str| {
        std::fs::read_to_string(fixtures().join("payloads").join(relative))
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_owned()
    };
    let ws = sandbox.workspace.display().to_string();
    let text = match adapter {
        "claude-code" => captured("claude-code/plain/SessionStart.jsonl"),
        "codex" => captured("codex/run2-allow-exec_command/SessionStart.jsonl"),
        "gemini-cli" => captured("gemini-cli/run1-allow/SessionStart.jsonl"),
        "grok" => captured("grok/write/SessionStart.jsonl"),
        "opencode" => captured("opencode/write/SessionStart.jsonl"),
        "copilot" => captured("copilot/write/userPromptSubmitted.jsonl"),
        "kimi-code" => serde_json::json!({
            "hook_event_name": "SessionStart",
            "session_id": "session_6f1c2a9e-0d4b-4c1e-9a57-3b2f8c7d1e00",
            "cwd": "/sandbox/ws",
            "client_type": "kimi_code_cli",
            "source": "startup",
            "model": "kimi-k2",
            "profile": "agent"
        })
        .to_string(),
        // The keys of Qwen Code 0.24.4's recorded SessionStart (captures/qwen-code-*/lifecycle).
        "qwen-code" => serde_json::json!({
            "session_id": "0d531fb8-5efd-4715-8ef2-785b9d423101",
            "transcript_path": "/sandbox/home/.qwen/projects/-sandbox-ws/chats/0d531fb8-5efd-4715-8ef2-785b9d423101.jsonl",
            "cwd": "/sandbox/ws",
            "hook_event_name": "SessionStart",
            "timestamp": "2026-12-06T09:46:43.011Z",
            "permission_mode": "yolo",
            "source": "startup",
            "model": "qwen-double"
        })
        .to_string(),
        "antigravity" => serde_json::json!({
            "conversationId": "3c9a7e2b-5f41-4d8e-a1b0-9e6d2c4f7a13",
            "workspacePaths": ["/sandbox/ws"],
            "modelName": "gemini-3-pro",
            "executionNum": 0
        })
        .to_string(),
        other => panic!("unknown adapter {other}"),
    };
    text.replace("/sandbox/ws", &ws)
        .replace("/sandbox/home", &sandbox.home.display().to_string())
}

/// The event whose hook opens a session: `SessionStart`, but for Copilot CLI, which runs its
/// `sessionStart` hook alongside the first prompt's, so acc opens the session on
/// `userPromptSubmitted` (adapters/copilot/src/install.rs).
fn opening_event(adapter: &str) -> &'static str {
    match adapter {
        "copilot" => "userPromptSubmitted",
        _ => "SessionStart",
    }
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[test]
fn every_installed_hook_command_is_absolute_and_the_session_start_one_runs() {
    for adapter in ADAPTERS {
        let sandbox = Sandbox::with_homes(&[adapter]);
        sandbox.acc(&["install", "--adapter", adapter]).ok();
        let hooks = written_hooks(&sandbox, adapter);
        assert!(hooks.len() >= 3, "{adapter}: {hooks:?}");
        let opening = opening_event(adapter);
        assert!(hooks.iter().any(|(event, _)| event == opening), "{adapter}");
        for (event, command) in &hooks {
            let parsed = HookCommand::parse(command)
                .unwrap_or_else(|| panic!("{adapter}: `{command}` is not acc's shape"));
            assert!(parsed.executable.is_absolute(), "{adapter}: {command}");
            assert!(is_executable(&parsed.executable), "{adapter}: {command}");
            assert_eq!(parsed.executable, support::hook_bin(), "{adapter}");
            assert_eq!(parsed.adapter_id, adapter);
            assert_eq!(
                &parsed.event, event,
                "{adapter}: the client's own event last"
            );
            assert_eq!(
                parsed.data_home.as_deref(),
                Some(sandbox.data.as_path()),
                "{adapter}: ACC_DATA_HOME was set, so the data home is pinned"
            );
        }
        let (_, command) = hooks.iter().find(|(event, _)| event == opening).unwrap();
        let payload = session_start_payload(&sandbox, adapter);
        // A decoy ACC_DATA_HOME: the pinned `--data-home` must win, so the hook opens the
        // same store as the CLI whatever the client's environment says.
        let decoy = sandbox.tmp.path().join("decoy-data");
        // Exactly as a client runs it: through a shell, with no PATH at all.
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg(command)
            .env_clear()
            .env("HOME", &sandbox.home)
            .env("ACC_DATA_HOME", &decoy)
            .current_dir(&sandbox.workspace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{adapter}: `{command}` exited {:?}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !decoy.exists(),
            "{adapter}: the hook used an unpinned data home"
        );
        assert!(
            !sandbox.home.join(".local/share/acc").exists(),
            "{adapter}: the hook used the default data home"
        );
    }
}

#[test]
fn without_acc_data_home_no_data_home_is_pinned() {
    let sandbox = Sandbox::new();
    let run = Command::new(support::acc_bin())
        .args(["install", "--adapter", "codex"])
        .env_clear()
        .env("HOME", &sandbox.home)
        .env("PATH", &sandbox.clients)
        .current_dir(&sandbox.workspace)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let hooks = written_hooks(&sandbox, "codex");
    for (_, command) in hooks {
        assert_eq!(HookCommand::parse(&command).unwrap().data_home, None);
    }
    // The record went to the default data home inside the wired home.
    if cfg!(not(target_os = "macos")) {
        assert!(sandbox.home.join(".local/share/acc/installs.json").exists());
    }
}
