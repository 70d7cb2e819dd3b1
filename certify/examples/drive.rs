//! Development driver: runs one real client against a model double with a trivial capture
//! hook and prints what happened. Not evidence; nothing here is written under `adapters/`.
//!
//! ```text
//! cargo run -p acc-certify --example drive -- <claude-code|codex|gemini-cli|grok> [write|deny|shell|shell-deny|all] [--keep]
//! ```
//! `write`: the double asks to write `src/x`, hooks stay silent. `deny`: the pre-tool hook
//! denies and the prompt hook injects a marker. `shell`/`shell-deny`: the same with a shell
//! step `echo x > src/y`. `--keep` leaves the sandbox (hook captures with environment and
//! process ancestry, request log, stdout/stderr) on disk and prints where.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use acc_certify::clients::config_files::merge_json_file;
use acc_certify::clients::{Client, InstalledClient, Sandbox, obtain, run_headless_with};
use acc_certify::doubles::{ModelDouble, Script, Step};
use serde_json::{Value, json};

const DENY_REASON: &str = "ACC-DRIVE-DENY: src is claimed by a peer";
const MARKER: &str = "ACC-DRIVE-MARKER-7391";
const PROBE_VAR: &str = "ACC_DRIVE_PROBE";
const PROMPT: &str = "please do the scripted task";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Write,
    Deny,
    Shell,
    ShellDeny,
}

impl Scenario {
    const ALL: [Scenario; 4] = [
        Scenario::Write,
        Scenario::Deny,
        Scenario::Shell,
        Scenario::ShellDeny,
    ];

    fn parse(text: &str) -> Option<Vec<Scenario>> {
        Some(match text {
            "write" => vec![Scenario::Write],
            "deny" => vec![Scenario::Deny],
            "shell" => vec![Scenario::Shell],
            "shell-deny" => vec![Scenario::ShellDeny],
            "all" => Scenario::ALL.to_vec(),
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Scenario::Write => "write",
            Scenario::Deny => "deny",
            Scenario::Shell => "shell",
            Scenario::ShellDeny => "shell-deny",
        }
    }

    fn denies(self) -> bool {
        matches!(self, Scenario::Deny | Scenario::ShellDeny)
    }

    fn target(self) -> &'static str {
        match self {
            Scenario::Write | Scenario::Deny => "src/x",
            Scenario::Shell | Scenario::ShellDeny => "src/y",
        }
    }
}

/// The client's event names: (prompt event, pre-tool event, every event registered).
fn events(client: Client) -> (&'static str, &'static str, &'static [&'static str]) {
    match client {
        Client::ClaudeCode => (
            "UserPromptSubmit",
            "PreToolUse",
            &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "Stop",
                "SessionEnd",
            ],
        ),
        Client::Codex => (
            "UserPromptSubmit",
            "PreToolUse",
            &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "Stop",
            ],
        ),
        Client::GeminiCli => (
            "BeforeAgent",
            "BeforeTool",
            &[
                "SessionStart",
                "BeforeAgent",
                "BeforeTool",
                "AfterTool",
                "AfterAgent",
                "SessionEnd",
            ],
        ),
        // Kimi reads `[[hooks]]` tables from TOML; `main` refuses it before this is reached.
        _ => (
            "UserPromptSubmit",
            "PreToolUse",
            &[
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "PermissionDenied",
                "Stop",
                "SessionEnd",
            ],
        ),
    }
}

const CAPTURE_HOOK: &str = r#"#!/bin/sh
# capture-hook.sh <capture dir> <event> <mode>: appends the payload, the environment and the
# process ancestry, then prints the scripted answer for <mode>.
dir="$1"; ev="$2"; mode="$3"
payload="$(cat)"
printf '%s\n' "$payload" >> "$dir/$ev.jsonl"
echo "$ev" >> "$dir/order.log"
{
  echo "== $ev pid=$$ cwd=$(pwd)"
  env | sort
  echo "-- ancestry (pid [comm] cmdline)"
  pid=$$
  while [ -r "/proc/$pid/stat" ] && [ "$pid" -gt 1 ]; do
    stat=$(cat "/proc/$pid/stat")
    comm=${stat#*(}; comm=${comm%)*}
    rest=${stat##*) }
    set -- $rest
    echo "$pid [$comm] $(tr '\0' ' ' < "/proc/$pid/cmdline")"
    pid=$2
  done
} >> "$dir/$ev.env"
case "$mode" in
  deny-claude-code) printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"__DENY__"}}' ;;
  deny-codex) echo "__DENY__" >&2; exit 2 ;;
  deny-gemini-cli) printf '%s\n' '{"decision":"block","reason":"__DENY__"}' ;;
  deny-grok) printf '%s\n' '{"decision":"deny","reason":"__DENY__"}' ;;
  inject-claude-code) printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"__MARKER__"}}' ;;
  inject-codex) echo "__MARKER__" ;;
  inject-gemini-cli) printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"__MARKER__"}}' ;;
  inject-grok) printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"__MARKER__"}}' ;;
esac
exit 0
"#;

fn write_capture_hook(dir: &Path) -> std::io::Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let path = dir.join("capture-hook.sh");
    let text = CAPTURE_HOOK
        .replace("__DENY__", DENY_REASON)
        .replace("__MARKER__", MARKER);
    fs::write(&path, text)?;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
    Ok(path)
}

/// Registers the capture hook for every event, the way REAL-CLIENTS §2.2, §3.2, §4.3 show.
fn register_hooks(
    client: Client,
    sandbox: &Sandbox,
    hook: &Path,
    captures: &Path,
    scenario: Scenario,
) -> Result<(), Box<dyn std::error::Error>> {
    let (prompt_event, tool_event, all) = events(client);
    let mut hooks = serde_json::Map::new();
    for event in all {
        let mode = match *event {
            event if scenario.denies() && event == tool_event => format!("deny-{client}"),
            event if scenario.denies() && event == prompt_event => format!("inject-{client}"),
            _ => "silent".to_owned(),
        };
        let command = format!("{} {} {event} {mode}", hook.display(), captures.display());
        let mut handler = json!({"type": "command", "command": command});
        let is_tool_event = event.contains("Tool");
        match client {
            Client::GeminiCli => {
                handler["name"] = json!(format!("drive-{event}"));
                handler["timeout"] = json!(30_000);
            }
            _ => handler["timeout"] = json!(30),
        }
        let mut group = json!({"hooks": [handler]});
        // Grok's matcher is a regex and an omitted one matches every tool.
        if is_tool_event && client != Client::Grok {
            group["matcher"] = json!(if client == Client::GeminiCli {
                ".*"
            } else {
                "*"
            });
        }
        hooks.insert((*event).to_owned(), json!([group]));
    }
    merge_json_file(
        &sandbox.hook_config_path(),
        &json!({"hooks": Value::Object(hooks)}),
    )?;
    Ok(())
}

fn drive(
    installed: &InstalledClient,
    scenario: Scenario,
    keep: bool,
) -> Result<bool, Box<dyn std::error::Error>> {
    let client = installed.client;
    let sandbox = Sandbox::new(client)?;
    let workspace = sandbox.workspace();
    fs::create_dir_all(workspace.join("src"))?;
    let target = workspace.join(scenario.target());
    let step = match scenario {
        Scenario::Write | Scenario::Deny => Step::write_file(&target, "written by the double\n"),
        Scenario::Shell | Scenario::ShellDeny => Step::shell("echo x > src/y"),
    };
    let script = Script::new(vec![step], "Done.")?;
    let mut double = ModelDouble::start(client.protocol(), script)?;
    let mut config_files = sandbox.write_base_config(double.port())?;
    let captures = sandbox.root().join("captures");
    // Grok runs only hook programs under ~/.grok/.
    let hook_dir = match client {
        Client::Grok => sandbox.home().join(".grok/bin"),
        _ => sandbox.root().join("bin"),
    };
    let hook = write_capture_hook(&hook_dir)?;
    fs::create_dir_all(&captures)?;
    register_hooks(client, &sandbox, &hook, &captures, scenario)?;
    // An installer fingerprints what it writes; note which files the client itself rewrites.
    config_files.push(sandbox.hook_config_path());
    config_files.dedup();
    let before: Vec<Option<Vec<u8>>> = config_files
        .iter()
        .map(|path| fs::read(path).ok())
        .collect();

    let extra: BTreeMap<String, String> =
        [(PROBE_VAR.to_owned(), "set-on-the-client".to_owned())].into();
    let output = run_headless_with(
        installed,
        &sandbox,
        double.port(),
        PROMPT,
        Duration::from_secs(120),
        &extra,
        false,
    )?;
    double.stop();
    let requests = double.requests();
    let rewritten: Vec<String> = config_files
        .iter()
        .zip(&before)
        .filter(|(path, old)| fs::read(path).ok() != **old)
        .map(|(path, _)| {
            path.strip_prefix(sandbox.root())
                .unwrap_or(path)
                .display()
                .to_string()
        })
        .collect();

    println!(
        "\n=== {client} {} / scenario {} ===",
        installed.version,
        scenario.name()
    );
    println!(
        "exit {:?}, timed out {}, {:.2} s",
        output.exit_code(),
        output.timed_out,
        output.duration.as_secs_f64()
    );
    let order = fs::read_to_string(captures.join("order.log")).unwrap_or_default();
    println!(
        "hook events: {}",
        order.lines().collect::<Vec<_>>().join(" -> ")
    );
    let (_, tool_event, _) = events(client);
    for line in fs::read_to_string(captures.join(format!("{tool_event}.jsonl")))
        .unwrap_or_default()
        .lines()
    {
        let payload: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        println!(
            "{tool_event}: tool_name {} tool_input {}",
            payload["tool_name"], payload["tool_input"]
        );
    }
    println!("config files the client rewrote: {rewritten:?}");
    let written = target.exists();
    println!("{} written: {written}", scenario.target());
    println!("model requests: {}", requests.len());
    let protocol = client.protocol();
    let mut reason_seen = false;
    let mut marker_seen = false;
    for request in &requests {
        let results = protocol.tool_results(&request.body);
        let visible = protocol.model_visible_text(&request.body);
        marker_seen |= visible.contains(MARKER);
        println!(
            "  #{} {} {} -> {} | marker in model text: {}",
            request.n,
            request.method,
            request.path,
            request.answered,
            visible.contains(MARKER)
        );
        for result in results {
            reason_seen |= result.text.contains(DENY_REASON);
            println!(
                "      tool result {} error={}: {:?}",
                result.call_id, result.is_error, result.text
            );
        }
    }
    let env_dump =
        fs::read_to_string(captures.join(format!("{tool_event}.env"))).unwrap_or_default();
    let passes = |var: &str| {
        env_dump
            .lines()
            .any(|line| line.starts_with(&format!("{var}=")))
    };
    println!(
        "hook env: ACC_DATA_HOME passed through: {}, {PROBE_VAR} passed through: {}",
        passes("ACC_DATA_HOME"),
        passes(PROBE_VAR)
    );
    if let Some(ancestry) = env_dump.split("-- ancestry").nth(1) {
        println!("hook ancestry ({tool_event}):");
        // Up to the client; what started this driver is not the client's business.
        let own_pid = std::process::id().to_string();
        for line in ancestry
            .lines()
            .skip(1)
            .take_while(|line| !line.starts_with("==") && !line.starts_with(&own_pid))
        {
            println!("    {line}");
        }
    }
    // Grok's documentation says prompt-hook output is discarded; its marker is only reported.
    let marker_required = client != Client::Grok;
    println!("marker reached the model: {marker_seen}");
    let expected = if scenario.denies() {
        !written && reason_seen && (marker_seen || !marker_required)
    } else {
        written && !marker_seen
    };
    println!(
        "verdict: {}",
        if expected {
            "as expected"
        } else {
            "UNEXPECTED"
        }
    );
    if !expected || keep {
        let stderr_tail: Vec<&str> = output.stderr.lines().rev().take(15).collect();
        println!("stderr (last lines, newest first):");
        for line in stderr_tail {
            println!("    {line}");
        }
    }
    if keep {
        double.write_log(&sandbox.root().join("requests.jsonl"))?;
        fs::write(sandbox.root().join("stdout.txt"), &output.stdout)?;
        fs::write(sandbox.root().join("stderr.txt"), &output.stderr)?;
        println!("kept: {}", sandbox.keep().display());
    }
    Ok(expected)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let keep = args.iter().any(|arg| arg == "--keep");
    let positional: Vec<&String> = args.iter().filter(|arg| !arg.starts_with("--")).collect();
    let Some(client) = positional
        .first()
        .and_then(|name| name.parse::<Client>().ok())
    else {
        eprintln!(
            "usage: drive <claude-code|codex|gemini-cli|grok> [write|deny|shell|shell-deny|all] [--keep]"
        );
        return ExitCode::from(2);
    };
    let Some(scenarios) = Scenario::parse(positional.get(1).map_or("all", |name| name.as_str()))
    else {
        eprintln!("unknown scenario; use write, deny, shell, shell-deny or all");
        return ExitCode::from(2);
    };
    if client == Client::KimiCode {
        eprintln!(
            "drive wires JSON hook files only; Kimi Code reads TOML: use `acc-certify record --client kimi-code`"
        );
        return ExitCode::from(2);
    }
    let installed = match obtain(client, client.pinned_version()) {
        Ok(installed) => installed,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    let mut all_expected = true;
    for scenario in scenarios {
        match drive(&installed, scenario, keep) {
            Ok(expected) => all_expected &= expected,
            Err(err) => {
                eprintln!("{} failed: {err}", scenario.name());
                all_expected = false;
            }
        }
    }
    if all_expected {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
