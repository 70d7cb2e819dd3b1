//! `acc-hook` as a client runs it: real captured payloads (fixtures/payloads) piped through
//! the binary for Claude Code, Codex, Gemini CLI and OpenCode, with the client-shaped answers pinned:
//! allow (silent), deny, and inject (bodies shown or withheld as each adapter's evidence
//! decides; shown under a recorder's candidate).

mod hook_support;

use acc_runtime::core::model::ReceiptState;
use hook_support::*;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn fixture(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/payloads")
        .join(rel);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .next()
        .expect("one payload per line")
        .to_string()
}

/// One captured client run, retargeted at the sandbox's workspace.
struct Client {
    adapter: &'static str,
    dir: &'static str,
    start: &'static str,
    tool: &'static str,
    turn: &'static str,
}

/// Claude Code's plain captured conversation.
const CLAUDE_CODE: Client = Client {
    adapter: "claude-code",
    dir: "plain",
    start: "SessionStart",
    tool: "PreToolUse",
    turn: "UserPromptSubmit",
};

impl Client {
    fn payload(&self, sb: &Sandbox, event: &str) -> String {
        fixture(&format!("{}/{}/{event}.jsonl", self.adapter, self.dir))
            .replace("/sandbox/ws", &sb.ws().display().to_string())
    }

    fn session_id(&self, sb: &Sandbox) -> String {
        let v: serde_json::Value = serde_json::from_str(&self.payload(sb, self.start)).unwrap();
        v["session_id"].as_str().unwrap().to_string()
    }
}

fn run(sb: &Sandbox, c: &Client, event: &str, env: &[(&str, &str)]) -> HookRun {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_acc-hook"));
    cmd.env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .envs(env.iter().copied())
        .args([c.adapter, event])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(c.payload(sb, event).as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn describe(r: &mut Redactor, step: &str, run: &HookRun) -> String {
    format!(
        "## {step}\nexit: {}\n--- stdout\n{}\n--- stderr\n{}\n",
        run.code,
        r.apply(&run.stdout),
        r.apply(&run.stderr)
    )
}

/// Whether the shipped adapter's own evidence grants `cap` to the client the hook recorded
/// at its start (name and version as stored in the binding).
fn evidence_grants(
    adapter: &str,
    binding: &acc_runtime::core::bindings::HookBinding,
    cap: acc_sdk::capabilities::Capability,
) -> bool {
    let adapter = acc_runtime::registry::find(adapter).unwrap();
    let primary = adapter.manifest().client.primary().to_string();
    let facts = acc_sdk::resolution::ClientFacts {
        client_version: binding.client_version.clone(),
        platform: acc_runtime::hook::platform::current(),
        client_name: Some(binding.client_name.clone()).filter(|n| *n != primary),
    };
    adapter.effective_capabilities(&facts).get(cap)
}

/// Start, an allowed write, a peer's guarded claim and the denied write, then a peer's
/// message at the next turn (shown or withheld as the adapter's evidence decides, and the
/// receipt offered exactly when shown), then one more under a recorder's candidate.
fn scenario(c: Client) -> String {
    let sb = Sandbox::new();
    let mut r = Redactor::new(&sb);
    let mut transcript = String::new();
    let start = run(&sb, &c, c.start, &[]);
    assert_eq!((start.code, start.stderr.as_str()), (0, ""));
    let mut core = sb.core();
    let key = acc_runtime::core::bindings::binding_key(&c.session_id(&sb));
    let binding = core.binding(&key).unwrap().unwrap();
    // The startup block (identity only: nobody else is here yet) where evidence grants it.
    let startup = evidence_grants(
        c.adapter,
        &binding,
        acc_sdk::capabilities::Capability::StartupInjection,
    );
    assert_eq!(
        start.stdout.contains("ACC you are:"),
        startup,
        "{}",
        start.stdout
    );
    transcript += &describe(&mut r, c.start, &start);

    let me = bound_owner(&mut core, &c.session_id(&sb));
    let participant = core.session(&me.session).unwrap().unwrap().participant_id;
    let allowed = run(&sb, &c, c.tool, &[]);
    assert_eq!((allowed.code, allowed.stdout.as_str()), (0, ""));
    transcript += &describe(&mut r, &format!("{} (no claim)", c.tool), &allowed);

    let peer = attach(&mut core, "peer", true);
    claim(&mut core, &peer, "file:hello.txt", true);
    let denied = run(&sb, &c, c.tool, &[]);
    transcript += &describe(
        &mut r,
        &format!("{} (peer holds file:hello.txt)", c.tool),
        &denied,
    );

    let body = "I am rewriting hello.txt until noon; please leave it to me.";
    send(&mut core, &peer, participant.as_str(), "hello.txt", body);
    let granted = evidence_grants(
        c.adapter,
        &binding,
        acc_sdk::capabilities::Capability::NextTurn,
    );
    let turn = run(&sb, &c, c.turn, &[]);
    let first = inbox(&mut core, &me)[0].receipt_state;
    assert_eq!(turn.stdout.contains(body), granted, "{}", turn.stdout);
    let expected = if granted {
        ReceiptState::Offered
    } else {
        ReceiptState::Queued
    };
    assert_eq!(first, expected, "offered exactly when shown");
    let label = if granted { "delivered" } else { "withheld" };
    transcript += &describe(&mut r, &format!("{} (evidence: {label})", c.turn), &turn);

    let second = "Done with hello.txt; it is yours.";
    send(&mut core, &peer, participant.as_str(), "released", second);
    let shown = run(
        &sb,
        &c,
        c.turn,
        &[("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn")],
    );
    assert!(shown.stdout.contains(second), "{}", shown.stdout);
    assert_eq!(
        inbox(&mut core, &me).last().unwrap().receipt_state,
        ReceiptState::Offered
    );
    transcript += &describe(
        &mut r,
        &format!("{} (ACC_CERTIFY_CANDIDATES=delivery.nextTurn)", c.turn),
        &shown,
    );
    transcript
}

#[test]
fn claude_code_answers() {
    insta::assert_snapshot!(scenario(CLAUDE_CODE));
}

#[test]
fn codex_answers() {
    insta::assert_snapshot!(scenario(Client {
        adapter: "codex",
        dir: "run2-allow-exec_command",
        start: "SessionStart",
        tool: "PreToolUse",
        turn: "UserPromptSubmit",
    }));
}

#[test]
fn gemini_cli_answers() {
    insta::assert_snapshot!(scenario(Client {
        adapter: "gemini-cli",
        dir: "run1-allow",
        start: "SessionStart",
        tool: "BeforeTool",
        turn: "BeforeAgent",
    }));
}

/// OpenCode, through acc's plugin: its payloads as the plugin sent them in a recording.
#[test]
fn opencode_answers() {
    insta::assert_snapshot!(scenario(Client {
        adapter: "opencode",
        dir: "write",
        start: "SessionStart",
        tool: "ToolExecuteBefore",
        turn: "ChatMessage",
    }));
}

#[test]
fn qwen_code_answers() {
    insta::assert_snapshot!(scenario(Client {
        adapter: "qwen-code",
        dir: "guard-write",
        start: "SessionStart",
        tool: "PreToolUse",
        turn: "UserPromptSubmit",
    }));
}

#[test]
fn help_names_the_command_line_and_the_fail_open_rule() {
    let out = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .arg("--help")
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap());
}

#[test]
fn the_data_home_flag_wins_over_the_environment() {
    let sb = Sandbox::new();
    let pinned = sb.root().join("pinned-home");
    let decoy = sb.root().join("env-home");
    let c = CLAUDE_CODE;
    let mut child = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .env_clear()
        .env("ACC_DATA_HOME", &decoy)
        .arg("--data-home")
        .arg(&pinned)
        .args(["claude-code", "SessionStart"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(c.payload(&sb, "SessionStart").as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        pinned.join("acc/workspaces").is_dir(),
        "the store lives under --data-home"
    );
    assert!(!decoy.exists());
}

/// A hook whose stdout is closed (`acc-hook … >&-`) shows nothing, so the message it would
/// have shown stays queued; the same turn with stdout open offers it.
#[test]
fn a_closed_stdout_offers_nothing() {
    let c = CLAUDE_CODE;
    let sb = Sandbox::new();
    assert_eq!(run(&sb, &c, c.start, &[]).code, 0);
    let mut core = sb.core();
    let me = bound_owner(&mut core, &c.session_id(&sb));
    let participant = core.session(&me.session).unwrap().unwrap().participant_id;
    let peer = attach(&mut core, "peer", true);
    send(
        &mut core,
        &peer,
        participant.as_str(),
        "hi",
        "a body to show",
    );

    let mut child = Command::new("/bin/sh")
        .args(["-c", "exec \"$0\" \"$@\" >&-"])
        .arg(env!("CARGO_BIN_EXE_acc-hook"))
        .args([c.adapter, c.turn])
        .env_clear()
        .env("ACC_DATA_HOME", sb.data())
        .env("ACC_TEST_CLOCK", FIXED_CLOCK)
        .env("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(c.payload(&sb, c.turn).as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        inbox(&mut core, &me)[0].receipt_state,
        ReceiptState::Queued,
        "nothing was shown, so nothing is offered"
    );

    let shown = run(
        &sb,
        &c,
        c.turn,
        &[("ACC_CERTIFY_CANDIDATES", "delivery.nextTurn")],
    );
    assert!(shown.stdout.contains("a body to show"), "{}", shown.stdout);
    assert_eq!(
        inbox(&mut core, &me)[0].receipt_state,
        ReceiptState::Offered
    );
}
