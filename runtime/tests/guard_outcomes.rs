//! The guard judged by outcomes, not verdicts: each tool call goes through the in-process
//! hook with the shipped adapter of Claude Code, Codex or Gemini CLI (payloads shaped like
//! their captured ones), and is then carried out as the hook answered it: a denied call is
//! not run, an allowed one is run (shell commands with `bash -c` in the sandbox workspace,
//! file tools as the client would write). A peer holds a guarded `file:src/**`; after every
//! call, the claimed files' bytes (in both worktrees) must be unchanged, and writes outside
//! the claim must still land.
//!
//! The forms are the path classes of issue 11 §5 (names with spaces, tabs, newlines, `*`,
//! unicode and trailing spaces, paths longer than 1,024 characters), §1 (another worktree)
//! and §3 (a hard link of a claimed file). Forms whose reading depends on the shell reader
//! expanding what bash would (variables, globs, inline interpreters) are that reader's tests.
//!
//! Every call is asked twice: as it comes (the guard's fast path may answer from the
//! published snapshot) and with the snapshot withdrawn (the store answers); the two must
//! agree.

mod hook_support;

use acc_runtime::store::guard_token;

use acc_sdk::define::Adapter;
use hook_support::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(rel: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/payloads")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// One shipped client: its adapter and a captured conversation to shape payloads after.
#[derive(Clone, Copy)]
struct Client {
    id: &'static str,
    adapter: fn() -> Adapter,
    dir: &'static str,
    start: &'static str,
    tool: &'static str,
    /// The payload's keys for the tool's name and its input.
    keys: (&'static str, &'static str),
    /// The permission mode the payloads carry, where not the captured one's.
    mode: Option<&'static str>,
    /// The client's shell tool.
    shell: &'static str,
}

const SNAKE: (&str, &str) = ("tool_name", "tool_input");

const CLAUDE_CODE: Client = Client {
    id: "claude-code",
    adapter: acc_adapter_claude_code::adapter,
    dir: "claude-code/deny",
    start: "SessionStart",
    tool: "PreToolUse",
    keys: SNAKE,
    mode: None,
    shell: "Bash",
};

const CODEX: Client = Client {
    id: "codex",
    adapter: acc_adapter_codex::adapter,
    dir: "codex/run5-deny-exit2-exec_command",
    start: "SessionStart",
    tool: "PreToolUse",
    keys: SNAKE,
    mode: None,
    shell: "Bash",
};

const GEMINI_CLI: Client = Client {
    id: "gemini-cli",
    adapter: acc_adapter_gemini_cli::adapter,
    dir: "gemini-cli/run2-deny-json-block",
    start: "SessionStart",
    tool: "BeforeTool",
    keys: SNAKE,
    mode: None,
    shell: "run_shell_command",
};

/// Copilot CLI's camelCase payloads name no event: the event is the hook's argument.
const COPILOT: Client = Client {
    id: "copilot",
    adapter: acc_adapter_copilot::adapter,
    dir: "copilot/shell",
    start: "userPromptSubmitted",
    tool: "preToolUse",
    keys: ("toolName", "toolArgs"),
    mode: None,
    shell: "bash",
};

const OPENCODE: Client = Client {
    id: "opencode",
    adapter: acc_adapter_opencode::adapter,
    dir: "opencode/write",
    start: "SessionStart",
    tool: "ToolExecuteBefore",
    keys: SNAKE,
    mode: None,
    shell: "bash",
};

const QWEN_CODE: Client = Client {
    id: "qwen-code",
    adapter: acc_adapter_qwen_code::adapter,
    dir: "qwen-code/guard-write",
    start: "SessionStart",
    tool: "PreToolUse",
    keys: SNAKE,
    mode: None,
    shell: "run_shell_command",
};

const KIMI_CODE: Client = Client {
    id: "kimi-code",
    adapter: acc_adapter_kimi_code::adapter,
    dir: "kimi-code/write",
    start: "SessionStart",
    tool: "PreToolUse",
    keys: SNAKE,
    mode: None,
    shell: "Bash",
};

const GROK: Client = Client {
    id: "grok",
    adapter: acc_adapter_grok::adapter,
    dir: "grok/shell",
    start: "SessionStart",
    tool: "PreToolUse",
    keys: ("toolName", "toolInput"),
    mode: None,
    shell: "run_terminal_command",
};

/// Claude Code in a permission mode in which acc does not rewrite a shell call (only
/// `bypassPermissions` lets it): the shell reader alone answers.
const fn claude_code_in(mode: &'static str) -> Client {
    Client {
        mode: Some(mode),
        ..CLAUDE_CODE
    }
}

/// Every client, and every mode, in which the shell reader alone answers a shell call:
/// each form it lets run must leave the claimed bytes as they were.
const READERS: [Client; 12] = [
    claude_code_in("default"),
    claude_code_in("acceptEdits"),
    claude_code_in("auto"),
    claude_code_in("plan"),
    claude_code_in("dontAsk"),
    CODEX,
    GEMINI_CLI,
    COPILOT,
    QWEN_CODE,
    KIMI_CODE,
    GROK,
    OPENCODE,
];

/// What the client would do with an allowed call.
#[derive(Debug, Clone)]
enum Act {
    /// `bash -c <command>` in the workspace.
    Shell(String),
    /// Create or overwrite a file with this content (in place, as a file tool does).
    Write(String, &'static str),
    /// Replace `old` by `new` in a file.
    Edit(String, &'static str, &'static str),
    /// Write "patched" into every file a Codex patch names.
    Patch(String),
}

/// One tool call: the client's tool name and input, and what running it does.
#[derive(Debug, Clone)]
struct Call {
    tool: &'static str,
    input: Value,
    act: Act,
}

fn shell(tool: &'static str, command: &str) -> Call {
    Call {
        tool,
        input: json!({ "command": command }),
        act: Act::Shell(command.to_string()),
    }
}

/// A Codex shell call given as argv; run as the same words.
fn argv(words: &[&str]) -> Call {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect();
    Call {
        tool: "Bash",
        input: json!({ "command": words }),
        act: Act::Shell(quoted.join(" ")),
    }
}

fn write_tool(tool: &'static str, ws: &Path, rel: &str) -> Call {
    let path = ws.join(rel).display().to_string();
    Call {
        tool,
        input: json!({ "file_path": path, "content": "overwritten\n" }),
        act: Act::Write(path, "overwritten\n"),
    }
}

fn edit_tool(tool: &'static str, ws: &Path, rel: &str) -> Call {
    let path = ws.join(rel).display().to_string();
    Call {
        tool,
        input: json!({ "file_path": path, "old_string": "claimed", "new_string": "edited" }),
        act: Act::Edit(path, "claimed", "edited"),
    }
}

fn patch(body: &str) -> Call {
    let patch = format!("*** Begin Patch\n{body}*** End Patch\n");
    Call {
        tool: "apply_patch",
        input: json!({ "command": patch }),
        act: Act::Patch(patch),
    }
}

/// A sandbox git workspace with claimed files of every awkward name, a second worktree, and
/// a hard link of a claimed file outside the claim; a peer holds a guarded `file:src/**`.
struct Room {
    sb: Sandbox,
    wt2: PathBuf,
    long: String,
}

const AWKWARD: [&str; 7] = [
    "src/Read Me.md",
    "src/a*b.rs",
    "src/tab\there.rs",
    "src/new\nline.rs",
    "src/nb\u{a0}sp\u{2003}em.rs",
    "src/trailing ",
    "src/lib.rs",
];

impl Room {
    fn new() -> Room {
        let sb = Sandbox::new();
        let ws = sb.ws();
        let long = format!("src/{}/deep.rs", vec!["d".repeat(200); 6].join("/"));
        assert!(long.len() > 1024);
        std::fs::create_dir_all(ws.join(Path::new(&long).parent().unwrap())).unwrap();
        std::fs::create_dir_all(ws.join("docs")).unwrap();
        for rel in AWKWARD.iter().copied().chain([long.as_str()]) {
            std::fs::write(ws.join(rel), format!("claimed {rel:?}\n")).unwrap();
        }
        std::fs::write(ws.join("docs/notes.md"), "free\n").unwrap();
        git(&ws, &["add", "."]);
        git(&ws, &["commit", "-q", "-m", "init"]);
        let wt2 = sb.root().join("wt2");
        git(
            &ws,
            &["worktree", "add", "-q", "-b", "two", wt2.to_str().unwrap()],
        );
        // A hard link made before the claim, outside it.
        std::fs::hard_link(ws.join("src/lib.rs"), ws.join("docs/lib-twin.rs")).unwrap();
        let mut core = sb.core();
        let peer = attach(&mut core, "peer", true);
        claim(&mut core, &peer, "file:src/**", true);
        Room { sb, wt2, long }
    }

    fn ws(&self) -> PathBuf {
        self.sb.ws()
    }

    fn payload(&self, c: Client, event: &str) -> Value {
        let mut p = fixture(&format!("{}/{event}.jsonl", c.dir));
        p["cwd"] = json!(self.ws().display().to_string());
        if let Some(mode) = c.mode {
            p["permission_mode"] = json!(mode);
        }
        if c.id == "opencode" {
            // As with a person's shell permission rule: no call is rewritten to run confined,
            // so each is judged by its targets (the rewrite has a test of its own).
            p["shell_rules"] = json!(true);
        }
        p
    }

    fn run(&self, c: Client, event: &str, payload: &Value) -> HookRun {
        run_hook(
            self.sb.settings(c.adapter, &[]),
            &[c.id, event],
            payload.to_string().as_bytes(),
        )
    }

    fn start(&self, c: Client) {
        let run = self.run(c, c.start, &self.payload(c, c.start));
        assert_eq!(run.code, 0, "{run:?}");
    }

    /// Asks the hook about `call`; runs it when allowed. True when it was denied.
    fn attempt(&self, c: Client, call: &Call) -> bool {
        let mut p = self.payload(c, c.tool);
        p[c.keys.0] = json!(call.tool);
        p[c.keys.1] = call.input.clone();
        let run = self.run(c, c.tool, &p);
        let denied = is_deny(&run);
        self.store_path_agrees(c, call, &p, denied);
        if !denied {
            assert_eq!(run.code, 0, "{} {call:?}: {run:?}", c.id);
            self.carry_out(&call.act);
        }
        denied
    }

    /// Asks again with the published snapshot withdrawn, so the store answers (what a
    /// write in flight leaves): the guard's fast path must never allow what the store
    /// path denies.
    fn store_path_agrees(&self, c: Client, call: &Call, p: &Value, denied: bool) {
        let token = guard_token::path_for(self.sb.core().store_path());
        let published = std::fs::read(&token).expect("a published snapshot");
        std::fs::remove_file(&token).unwrap();
        let slow = self.run(c, c.tool, p);
        assert_eq!(
            is_deny(&slow),
            denied,
            "{} {call:?}: the snapshot answered {denied}, the store {slow:?}",
            c.id
        );
        // A write the store path made published anew; otherwise the token comes back.
        if !token.exists() {
            std::fs::write(&token, published).unwrap();
        }
    }

    fn carry_out(&self, act: &Act) {
        let ws = self.ws();
        match act {
            Act::Shell(command) => {
                let home = self.sb.root().join("home");
                std::fs::create_dir_all(&home).unwrap();
                Command::new("bash")
                    .args(["-c", command])
                    .current_dir(&ws)
                    .env("HOME", &home)
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .output()
                    .unwrap();
            }
            Act::Write(path, content) => {
                if let Some(dir) = Path::new(path).parent() {
                    std::fs::create_dir_all(dir).unwrap();
                }
                std::fs::write(path, content).unwrap();
            }
            Act::Edit(path, old, new) => {
                let text = std::fs::read_to_string(path).unwrap_or_default();
                std::fs::write(path, text.replace(old, new)).unwrap();
            }
            Act::Patch(patch) => {
                for line in patch.lines() {
                    let line = line.trim_start();
                    for header in ["*** Add File: ", "*** Update File: ", "*** Move to: "] {
                        if let Some(rel) = line.strip_prefix(header) {
                            let path = ws.join(rel);
                            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                            std::fs::write(path, "patched\n").unwrap();
                        }
                    }
                }
            }
        }
    }

    /// Every file under the claimed trees of both worktrees, with its bytes.
    fn claimed_bytes(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        for root in [self.ws(), self.wt2.clone()] {
            for e in walkdir::WalkDir::new(root.join("src"))
                .into_iter()
                .flatten()
            {
                if e.file_type().is_file() {
                    out.insert(e.path().to_path_buf(), std::fs::read(e.path()).unwrap());
                }
            }
        }
        out
    }
}

/// Runs every call as the hook answers it and checks the claimed bytes after each.
fn hold(c: Client, calls: impl Fn(&Room) -> Vec<Call>) {
    let room = Room::new();
    room.start(c);
    let before = room.claimed_bytes();
    assert_eq!(before.len(), (AWKWARD.len() + 1) * 2, "{before:?}");
    for call in calls(&room) {
        let denied = room.attempt(c, &call);
        assert_eq!(
            room.claimed_bytes(),
            before,
            "{} ({:?}) {call:?} (denied: {denied}) changed a claimed file",
            c.id,
            c.mode
        );
        assert!(denied, "{} ({:?}) {call:?} was allowed", c.id, c.mode);
    }
}

fn quote(rel: &str) -> String {
    format!("'{}'", rel.replace('\'', r"'\''"))
}

#[test]
fn claude_code_file_tools_and_shell_cannot_touch_claimed_files() {
    hold(CLAUDE_CODE, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD.iter().copied().chain([room.long.as_str()]) {
            calls.push(write_tool("Write", &ws, rel));
            calls.push(edit_tool("Edit", &ws, rel));
            calls.push(shell("Bash", &format!("rm -f {}", quote(rel))));
            calls.push(shell("Bash", &format!("echo x > {}", quote(rel))));
        }
        calls.extend([
            write_tool("Write", &ws, "src/brand new file.rs"),
            shell("Bash", r#"printf x > src/Read\ Me.md"#),
            shell(
                "Bash",
                r#"cat > "src/a*b.rs" <<'EOF'
gone
EOF"#,
            ),
            shell("Bash", "rm -rf src"),
            // Another worktree of the same repository: the same claim.
            shell("Bash", "echo x > ../wt2/src/lib.rs"),
            shell("Bash", "rm -rf '../wt2/src/Read Me.md'"),
            write_tool("Write", &room.wt2, "src/a*b.rs"),
            // A hard link of a claimed file is the claimed file.
            write_tool("Write", &ws, "docs/lib-twin.rs"),
            shell("Bash", "echo x >> docs/lib-twin.rs"),
            // What acc cannot read is refused while the claim is guarded.
            shell("Bash", "echo x > \"$(echo src)/lib.rs\""),
        ]);
        calls
    });
}

#[test]
fn codex_shell_strings_argv_and_patches_cannot_touch_claimed_files() {
    hold(CODEX, |room| {
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(shell("Bash", &format!("rm -f {}", quote(rel))));
            calls.push(argv(&["rm", "-f", rel]));
            calls.push(argv(&["bash", "-lc", &format!("echo x > {}", quote(rel))]));
        }
        calls.extend([
            argv(&["cp", "docs/notes.md", &room.long]),
            argv(&["tee", "../wt2/src/Read Me.md"]),
            patch("*** Update File: src/Read Me.md\n@@\n-claimed\n+patched\n"),
            patch("*** Add File: src/a*b.rs\n+patched\n"),
            patch("*** Update File: docs/notes.md\n*** Move to: src/trailing \n@@\n-free\n+x\n"),
            patch("*** Update File: docs/lib-twin.rs\n@@\n-claimed\n+patched\n"),
        ]);
        calls
    });
}

#[test]
fn gemini_cli_file_tools_and_shell_cannot_touch_claimed_files() {
    hold(GEMINI_CLI, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(write_tool("write_file", &ws, rel));
            calls.push(edit_tool("replace", &ws, rel));
            calls.push(shell("run_shell_command", &format!("rm -f {}", quote(rel))));
        }
        calls.extend([
            write_tool("write_file", &ws, &room.long),
            shell("run_shell_command", "mv src old-src"),
            shell("run_shell_command", "echo x > ../wt2/src/lib.rs"),
            edit_tool("replace", &ws, "docs/lib-twin.rs"),
        ]);
        calls
    });
}

/// Copilot CLI's `create` and `edit` (`path`, `file_text`, `old_str`), its `bash`, and
/// `write_bash`, which types a command into a shell started earlier.
#[test]
fn copilot_file_tools_shell_and_typed_input_cannot_touch_claimed_files() {
    let create = |ws: &Path, rel: &str| {
        let path = ws.join(rel).display().to_string();
        Call {
            tool: "create",
            input: json!({"path": path, "file_text": "overwritten\n"}),
            act: Act::Write(path, "overwritten\n"),
        }
    };
    let edit = |ws: &Path, rel: &str| {
        let path = ws.join(rel).display().to_string();
        Call {
            tool: "edit",
            input: json!({"path": path, "old_str": "claimed", "new_str": "edited"}),
            act: Act::Edit(path, "claimed", "edited"),
        }
    };
    let typed = |command: &str| Call {
        tool: "write_bash",
        input: json!({"shellId": "0", "input": command}),
        act: Act::Shell(command.to_owned()),
    };
    hold(COPILOT, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(create(&ws, rel));
            calls.push(edit(&ws, rel));
            calls.push(shell("bash", &format!("rm -f {}", quote(rel))));
            calls.push(typed(&format!("echo x > {}", quote(rel))));
        }
        calls.extend([
            create(&ws, &room.long),
            create(&room.wt2, "src/lib.rs"),
            edit(&ws, "docs/lib-twin.rs"),
            shell("bash", "mv src old-src"),
            shell("bash", "echo x > ../wt2/src/lib.rs"),
            // What acc cannot read is refused while the claim is guarded.
            shell("bash", "echo x > \"$(echo src)/lib.rs\""),
            Call {
                tool: "apply_patch",
                input: json!("*** Begin Patch\n*** Update File: src/lib.rs\n*** End Patch\n"),
                act: Act::Patch("*** Update File: src/lib.rs\n".to_owned()),
            },
        ]);
        calls
    });
    // Outside the claim the same tools still write.
    let room = Room::new();
    room.start(COPILOT);
    let ws = room.ws();
    for (call, rel, expected) in [
        (
            create(&ws, "docs/new file.md"),
            "docs/new file.md",
            "overwritten\n",
        ),
        (
            shell("bash", "printf 'c\\n' > docs/notes.md"),
            "docs/notes.md",
            "c\n",
        ),
    ] {
        assert!(!room.attempt(COPILOT, &call), "{call:?} was denied");
        assert_eq!(std::fs::read_to_string(ws.join(rel)).unwrap(), expected);
    }
}

#[test]
fn qwen_code_file_tools_and_shell_cannot_touch_claimed_files() {
    hold(QWEN_CODE, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(write_tool("write_file", &ws, rel));
            calls.push(edit_tool("edit", &ws, rel));
            calls.push(shell("run_shell_command", &format!("rm -f {}", quote(rel))));
        }
        calls.extend([
            write_tool("write_file", &ws, &room.long),
            shell("run_shell_command", "mv src old-src"),
            shell("run_shell_command", "echo x > ../wt2/src/lib.rs"),
            edit_tool("edit", &ws, "docs/lib-twin.rs"),
        ]);
        calls
    });
}

/// The inner tool's `PreToolUse` payload Qwen Code 0.24.4 sent when the model ran
/// `write_file` through its `tool_call` bridge (the recorder's `guard-bridge` capture): the
/// bridge resolves the call before the hook, so acc is asked about `write_file` itself.
fn qwen_bridged_payload() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../captures/qwen-code-0.24.4-linux-x64/guard-bridge/hooks.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|entry| entry["payload"].clone())
        .find(|p| p["hook_event_name"] == "PreToolUse")
        .expect("the capture holds the bridged write's PreToolUse")
}

#[test]
fn qwen_code_writes_through_the_tool_bridge_cannot_touch_claimed_files() {
    let captured = qwen_bridged_payload();
    assert_eq!(captured["tool_name"], "write_file");
    let c = QWEN_CODE;
    let room = Room::new();
    room.start(c);
    let ws = room.ws();
    let before = room.claimed_bytes();
    let mut calls: Vec<Call> = AWKWARD
        .iter()
        .map(|rel| write_tool("write_file", &ws, rel))
        .collect();
    calls.push(write_tool("write_file", &ws, "../wt2/src/lib.rs"));
    calls.push(edit_tool("edit", &ws, "docs/lib-twin.rs"));
    for call in calls {
        let mut p = captured.clone();
        p["cwd"] = json!(ws.display().to_string());
        p["tool_name"] = json!(call.tool);
        p["tool_input"] = call.input.clone();
        let run = room.run(c, c.tool, &p);
        let denied = is_deny(&run);
        if !denied {
            room.carry_out(&call.act);
        }
        assert_eq!(
            room.claimed_bytes(),
            before,
            "bridged {call:?} (denied: {denied}) changed a claimed file"
        );
        assert!(denied, "bridged {call:?} was allowed");
    }
}

/// Kimi Code names a written file `path` (Claude Code's `file_path` is read too).
fn kimi_write(ws: &Path, rel: &str, key: &str) -> Call {
    let path = ws.join(rel).display().to_string();
    Call {
        tool: "Write",
        input: json!({ key: path, "content": "overwritten\n" }),
        act: Act::Write(path, "overwritten\n"),
    }
}

#[test]
fn kimi_code_and_grok_file_tools_and_shell_cannot_touch_claimed_files() {
    hold(KIMI_CODE, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(kimi_write(&ws, rel, "path"));
            calls.push(kimi_write(&ws, rel, "file_path"));
            calls.push(edit_tool("Edit", &ws, rel));
            calls.push(shell("Bash", &format!("rm -f {}", quote(rel))));
        }
        calls.extend([
            kimi_write(&ws, &room.long, "path"),
            shell("Bash", "mv src old-src"),
            shell("Bash", "echo x > ../wt2/src/lib.rs"),
            edit_tool("Edit", &ws, "docs/lib-twin.rs"),
        ]);
        calls
    });
    hold(GROK, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(write_tool("write", &ws, rel));
            calls.push(edit_tool("search_replace", &ws, rel));
            calls.push(shell(
                "run_terminal_command",
                &format!("rm -f {}", quote(rel)),
            ));
        }
        calls.extend([
            write_tool("write", &ws, &room.long),
            shell("run_terminal_command", "mv src old-src"),
            shell("run_terminal_command", "echo x > ../wt2/src/lib.rs"),
            edit_tool("search_replace", &ws, "docs/lib-twin.rs"),
        ]);
        calls
    });
}

#[test]
fn writes_outside_the_claim_still_land_and_reads_are_never_denied() {
    let room = Room::new();
    let ws = room.ws();
    for c in [CLAUDE_CODE, CODEX, GEMINI_CLI] {
        room.start(c);
    }
    let before = room.claimed_bytes();
    let writes: [(Client, Call, &str, &str); 7] = [
        (
            CLAUDE_CODE,
            write_tool("Write", &ws, "docs/Read Me.md"),
            "docs/Read Me.md",
            "overwritten\n",
        ),
        (
            CLAUDE_CODE,
            shell("Bash", "printf 'ok\\n' > 'docs/a*b.md'"),
            "docs/a*b.md",
            "ok\n",
        ),
        (
            CLAUDE_CODE,
            shell("Bash", "printf 'wt\\n' > ../wt2/docs.md"),
            "../wt2/docs.md",
            "wt\n",
        ),
        (
            CODEX,
            argv(&["bash", "-lc", "printf 'argv\\n' > 'docs/tab\there.md'"]),
            "docs/tab\there.md",
            "argv\n",
        ),
        (
            CODEX,
            patch("*** Add File: docs/patched file.md\n+patched\n"),
            "docs/patched file.md",
            "patched\n",
        ),
        (
            GEMINI_CLI,
            write_tool("write_file", &ws, "docs/trailing "),
            "docs/trailing ",
            "overwritten\n",
        ),
        (
            GEMINI_CLI,
            shell("run_shell_command", "printf 'g\\n' > docs/notes.md"),
            "docs/notes.md",
            "g\n",
        ),
    ];
    for (c, call, rel, expected) in writes {
        assert!(!room.attempt(c, &call), "{} {call:?} was denied", c.id);
        assert_eq!(
            std::fs::read_to_string(ws.join(rel)).unwrap(),
            expected,
            "{} {call:?}",
            c.id
        );
    }
    let reads = [
        "cat 'src/Read Me.md'",
        "grep -r claimed src",
        "ls src",
        "ls -la src/",
        "git status",
        "git diff",
        "git log --oneline",
        "git blame src/lib.rs",
        "sed -n 1p src/lib.rs",
        "awk '{print $1}' 'src/a*b.rs'",
        "cd src && ls",
        "wc -l src/lib.rs docs/lib-twin.rs",
        "head -c 10 docs/lib-twin.rs",
    ];
    for command in reads {
        for (c, tool) in [
            (CLAUDE_CODE, "Bash"),
            (CODEX, "Bash"),
            (GEMINI_CLI, "run_shell_command"),
        ] {
            assert!(
                !room.attempt(c, &shell(tool, command)),
                "{} denied {command:?}",
                c.id
            );
        }
    }
    // Ordinary build and test commands that name no claimed path: judged, not run.
    for command in [
        "cargo build",
        "cargo test -p acc-runtime --test guard_outcomes",
        "npm test",
        "make",
        "python3 -m pytest -q",
        "go test ./...",
    ] {
        let mut p = room.payload(CLAUDE_CODE, "PreToolUse");
        p["tool_name"] = json!("Bash");
        p["tool_input"] = json!({ "command": command });
        let run = room.run(CLAUDE_CODE, "PreToolUse", &p);
        assert!(!is_deny(&run), "{command:?}: {run:?}");
    }
    assert_eq!(room.claimed_bytes(), before);
}

/// Archives, a patch and scripts that really change `src/` when run at the root.
fn seed_unbounded(room: &Room) {
    let ws = room.ws();
    let stage = room.sb.root().join("stage");
    std::fs::create_dir_all(stage.join("src")).unwrap();
    std::fs::write(stage.join("src/lib.rs"), "from the archive\n").unwrap();
    let run = |dir: &Path, program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
    };
    let at = |name: &str| ws.join(name).display().to_string();
    run(&stage, "tar", &["cf", &at("a.tar"), "src/lib.rs"]);
    run(&stage.join("src"), "tar", &["cf", &at("b.tar"), "lib.rs"]);
    run(&stage, "zip", &["-q", &at("a.zip"), "src/lib.rs"]);
    run(&stage.join("src"), "zip", &["-q", &at("b.zip"), "lib.rs"]);
    std::fs::write(
        ws.join("x.diff"),
        "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-claimed \"src/lib.rs\"\n+patched\n",
    )
    .unwrap();
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::write(
        ws.join("tools/w.py"),
        "import sys\nopen(sys.argv[1], 'w').write('written')\n",
    )
    .unwrap();
    std::fs::write(ws.join("tools/r.py"), "print('read only')\n").unwrap();
}

/// The forms issue 25 measured: command substitutions, programs acc does not know that name
/// a claimed path, and programs that write into a directory holding the claim. Each would
/// change `src/` if it ran.
const UNBOUNDED: &[&str] = &[
    "echo $(rm -f src/lib.rs)",
    "x=$(rm -f src/lib.rs)",
    "cat <(rm -f src/lib.rs)",
    "echo \"$(rm -f src/lib.rs)\"",
    "echo `rm -f src/lib.rs`",
    "echo ${x:-$(rm -f src/lib.rs)}",
    "cat <<EOF\n$(rm -f src/lib.rs)\nEOF",
    "ls $(echo > src/lib.rs)",
    "chmod 000 src/lib.rs",
    "chmod -R 000 src",
    "chmod -R 000 .",
    "curl -s -o src/lib.rs http://127.0.0.1:9/x",
    "tar -C src -xf b.tar",
    "tar xf a.tar",
    "tar -xf a.tar",
    "cd src && tar xf ../b.tar",
    "unzip -o a.zip",
    "unzip -o -d src b.zip",
    "patch -p1 < x.diff",
    "git am x.patch",
    "git apply x.diff",
    "npm install",
    "truncate -s0 src/lib.rs",
    "dd of=src/lib.rs if=/dev/null",
    "shred src/lib.rs",
    "rsync docs/notes.md src/",
    "install -m644 docs/notes.md src/lib.rs",
    "split -b1 docs/notes.md src/x",
    "touch src/lib.rs",
    "chown 12345 src/lib.rs",
    "ln -sf /etc/hostname src/lib.rs",
    "sqlite3 src/db 'create table t(x)'",
    "python3 - <<'EOF'\nopen('src/lib.rs', 'w').write('x')\nEOF",
    "python3 tools/w.py src/lib.rs",
    "sort -o src/lib.rs docs/notes.md",
    "uniq docs/notes.md src/lib.rs",
    "cp docs/notes.md src/new.rs",
    // Found by running more forms (issue 25's last round): links made and written through
    // in one command, archivers that remove what they archive, git's output files,
    // editors' commands, a makefile on standard input.
    "cp -rs \"$PWD/src\" sl && echo x > sl/lib.rs",
    "cp -rl src hl && echo x > hl/lib.rs",
    "tar --remove-files -cf out.tar src",
    "git format-patch -1 -o src",
    "git diff --output=src/lib.rs",
    "git log -1 --output src/log.txt",
    "vim -es -c 'wq! src/lib.rs' docs/notes.md",
    "make -f /dev/stdin <<< $'all:\\n\\trm -f src/lib.rs'",
    // acc's own runner, spelt by the agent with nothing made read-only.
    "acc-guard -- 'rm -f src/lib.rs'",
    "acc-hook guard-exec -- 'echo x > src/lib.rs'",
];

/// Read-only forms: allowed, run, and nothing claimed changes.
const READS: &[&str] = &[
    "cat src/lib.rs",
    "cat < src/lib.rs",
    "head -n 1 src/lib.rs",
    "tail -n 1 src/lib.rs",
    "grep -rn claimed src",
    "grep -c claimed src/lib.rs",
    "ls src",
    "ls -la src/",
    "ls -R src | head",
    "wc -l src/lib.rs docs/notes.md",
    "wc -c src/*",
    "diff -u src/lib.rs docs/notes.md || true",
    "cmp src/lib.rs docs/notes.md || true",
    "git status",
    "git diff",
    "git log --oneline",
    "git log -p -- src",
    "git show HEAD:src/lib.rs",
    "git ls-files src",
    "git grep claimed",
    "git blame src/lib.rs",
    "find src -type f",
    "find src -name '*.rs' -exec grep -l claimed {} +",
    "find src -type f | xargs grep -l claimed",
    "echo src/*",
    "printf '%s\\n' src/*",
    "test -f src/lib.rs && echo yes",
    "[ -d src ] && echo dir",
    "stat src/lib.rs",
    "file src/lib.rs",
    "sort src/lib.rs",
    "uniq src/lib.rs",
    "echo '{}' | jq .",
    "sha256sum src/lib.rs",
    "md5sum src/lib.rs",
    "du -sh src",
    "readlink -f src/lib.rs",
    "realpath src",
    "basename src/lib.rs",
    "dirname src/lib.rs",
    "od -c src/lib.rs | head",
    "xxd src/lib.rs | head",
    "cut -c1-3 src/lib.rs",
    "tr a-z A-Z < src/lib.rs",
    "nl src/lib.rs",
    "tac src/lib.rs",
    "strings src/lib.rs",
    "paste src/lib.rs docs/notes.md",
    "awk 'END{print NR}' src/lib.rs",
    "sed -n '1p' src/lib.rs",
    "cat src/lib.rs | base64",
    "comm <(sort src/lib.rs) <(sort docs/notes.md)",
    "diff <(sort src/lib.rs) <(sort docs/notes.md) || true",
    "echo $(cat src/lib.rs)",
    "x=$(cat src/lib.rs); echo \"$x\"",
    "echo $(git rev-parse HEAD) `date`",
    "tar tf a.tar",
    "tar czf ../out.tgz src",
    "unzip -l a.zip",
    "python3 tools/r.py",
    "pwd && which bash && type ls",
];

/// Every client's reader, in every mode where it alone answers, against every form.
#[test]
fn programs_acc_cannot_bound_cannot_touch_claimed_files() {
    for c in READERS {
        hold(c, |room| {
            seed_unbounded(room);
            UNBOUNDED.iter().map(|form| shell(c.shell, form)).collect()
        });
    }
}

/// acc's own runner, spelt by the agent with nothing made read-only, runs whatever its
/// last word says: read as that script, by every reader.
#[test]
fn acc_s_own_runner_spelt_by_hand_cannot_touch_claimed_files() {
    let guard = quote(env!("CARGO_BIN_EXE_acc-guard"));
    let hook = quote(env!("CARGO_BIN_EXE_acc-hook"));
    for c in READERS {
        hold(c, |_| {
            vec![
                shell(c.shell, &format!("{guard} -- 'rm -f src/lib.rs'")),
                shell(
                    c.shell,
                    &format!("{guard} --rw /tmp -- 'echo x > src/lib.rs'"),
                ),
                shell(c.shell, &format!("{hook} guard-exec -- 'rm -rf src'")),
                shell(
                    c.shell,
                    &format!("cd src && {hook} guard-exec -- 'rm -f lib.rs'"),
                ),
            ]
        });
    }
}

#[test]
fn read_only_forms_stay_allowed_and_run() {
    let room = Room::new();
    seed_unbounded(&room);
    let before = room.claimed_bytes();
    assert!(READS.len() >= 60);
    for c in READERS {
        room.start(c);
        for command in READS {
            assert!(
                !room.attempt(c, &shell(c.shell, command)),
                "{} ({:?}) denied {command:?}",
                c.id,
                c.mode
            );
        }
    }
    assert_eq!(room.claimed_bytes(), before);
}

#[test]
fn a_refusal_of_an_unknown_program_names_it_the_claim_and_the_owner() {
    let room = Room::new();
    room.start(CLAUDE_CODE);
    let ask = |command: &str| {
        let mut p = room.payload(CLAUDE_CODE, "PreToolUse");
        p["tool_name"] = json!("Bash");
        p["tool_input"] = json!({ "command": command });
        let run = room.run(CLAUDE_CODE, "PreToolUse", &p);
        assert!(is_deny(&run), "{command:?}: {run:?}");
        run.stdout
    };
    let chmod = ask("chmod 000 src/lib.rs");
    assert!(
        chmod.contains("`chmod` is not known to be read-only and names file:src/lib.rs")
            && chmod.contains("claimed by peer")
            && chmod.contains("ask peer to release the claim, or name the files"),
        "{chmod}"
    );
    let tar = ask("tar xf a.tar");
    assert!(
        tar.contains("`tar` writes into the whole workspace")
            && tar.contains("file:src/** is claimed by peer"),
        "{tar}"
    );
}

#[test]
fn a_notebook_edit_whose_path_fields_disagree_is_refused() {
    hold(CLAUDE_CODE, |room| {
        let ws = room.ws();
        let inside = ws.join("src/lib.rs").display().to_string();
        let outside = ws.join("docs/notes.md").display().to_string();
        vec![Call {
            tool: "NotebookEdit",
            input: json!({ "notebook_path": inside, "file_path": outside, "new_source": "x" }),
            act: Act::Write(inside.clone(), "overwritten\n"),
        }]
    });
}

/// Forms the reader cannot judge (inline interpreters, `eval`, variables, `find -exec`): where
/// a call may be rewritten they must run confined and still leave `src/` as it was.
const OPAQUE: &[&str] = &[
    "python3 -c \"open('src/lib.rs','w').write('x')\"",
    "python3 -c \"import os; os.remove('src/lib.rs')\"",
    "python3 -c \"import os; os.rename('src', 'old')\"",
    "python3 -c \"open('src/brand-new.rs','w').write('x')\"",
    "cd src && python3 -c \"open('lib.rs','w').write('x')\"",
    "cd ../wt2 && python3 -c \"open('src/lib.rs','w').write('x')\"",
    "perl -e 'unlink \"src/lib.rs\"'",
    "bash -c 'echo x > src/lib.rs'",
    "eval 'rm -rf src'",
    "f=src/lib.rs; echo x > $f",
    "find src -type f -delete",
    "find src -name '*.rs' -exec sh -c 'echo x > \"$1\"' _ {} \\;",
];

/// Claude Code in `bypassPermissions` lets acc rewrite a shell call to run confined: every
/// writing form is refused, or rewritten and run under the real runner with the hook's
/// layout of the claim (both worktrees), and no claimed file changes either way.
#[test]
fn in_bypass_permissions_every_writing_form_is_refused_or_runs_confined() {
    let room = Room::new();
    seed_unbounded(&room);
    room.start(CLAUDE_CODE);
    let ws = room.ws();
    let before = room.claimed_bytes();
    let probe = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .args(["guard-exec", "--", "true"])
        .output()
        .unwrap();
    if probe.status.code() == Some(125) {
        eprintln!("skipped: the kernel refuses the namespace here: {probe:?}");
        return;
    }
    let runner = format!(
        "'{}' 'guard-exec'",
        std::env::current_exe().unwrap().display()
    );
    let mut rewritten = 0;
    for form in UNBOUNDED.iter().chain(OPAQUE) {
        let mut p = room.payload(CLAUDE_CODE, "PreToolUse");
        p["permission_mode"] = json!("bypassPermissions");
        p["tool_name"] = json!("Bash");
        p["tool_input"] = json!({ "command": form });
        let run = room.run(CLAUDE_CODE, "PreToolUse", &p);
        if !is_deny(&run) {
            let answer: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
            let line = answer["hookSpecificOutput"]["updatedInput"]["command"]
                .as_str()
                .unwrap_or_else(|| panic!("{form:?} was allowed unconfined: {run:?}"));
            // The hook ran in this test process, which named itself as the runner; the
            // line runs under `acc-guard`, as where it is installed beside `acc-hook`.
            let rest = line.strip_prefix(&runner).expect(line);
            let real = format!("'{}'{rest}", env!("CARGO_BIN_EXE_acc-guard"));
            room.carry_out(&Act::Shell(real));
            rewritten += 1;
        }
        assert_eq!(
            room.claimed_bytes(),
            before,
            "{form:?} changed a claimed file"
        );
        assert!(!ws.join("src/brand-new.rs").exists(), "{form:?}");
    }
    assert!(rewritten >= OPAQUE.len(), "{rewritten} rewritten");
}

/// OpenCode's file tools name their file in `filePath`.
fn opencode_write(ws: &Path, rel: &str) -> Call {
    let path = ws.join(rel).display().to_string();
    Call {
        tool: "write",
        input: json!({ "filePath": path, "content": "overwritten\n" }),
        act: Act::Write(path, "overwritten\n"),
    }
}

fn opencode_edit(ws: &Path, rel: &str) -> Call {
    let path = ws.join(rel).display().to_string();
    Call {
        tool: "edit",
        input: json!({ "filePath": path, "oldString": "claimed", "newString": "edited" }),
        act: Act::Edit(path, "claimed", "edited"),
    }
}

/// OpenCode's `apply_patch` carries Codex's grammar in `patchText`.
fn opencode_patch(body: &str) -> Call {
    let patch = format!("*** Begin Patch\n{body}*** End Patch\n");
    Call {
        tool: "apply_patch",
        input: json!({ "patchText": patch }),
        act: Act::Patch(patch),
    }
}

/// A `bash` call run in `workdir` (relative to the workspace).
fn opencode_bash_in(workdir: &str, command: &str) -> Call {
    Call {
        tool: "bash",
        input: json!({ "command": command, "workdir": workdir }),
        act: Act::Shell(format!("cd {} && {command}", quote(workdir))),
    }
}

#[test]
fn opencode_file_tools_patches_and_shell_cannot_touch_claimed_files() {
    hold(OPENCODE, |room| {
        let ws = room.ws();
        let mut calls = Vec::new();
        for rel in AWKWARD {
            calls.push(opencode_write(&ws, rel));
            calls.push(opencode_edit(&ws, rel));
            calls.push(shell("bash", &format!("rm -f {}", quote(rel))));
            calls.push(opencode_patch(&format!("*** Delete File: {rel}\n")));
        }
        calls.extend([
            opencode_write(&ws, &room.long),
            shell("bash", "mv src old-src"),
            shell("bash", "echo x > ../wt2/src/lib.rs"),
            opencode_edit(&ws, "docs/lib-twin.rs"),
            opencode_patch("*** Add File: src/brand-new.rs\n+x\n"),
            opencode_patch(
                "*** Update File: docs/notes.md\n*** Move to: src/lib.rs\n@@\n-free\n+x\n",
            ),
            // The same write, spelt from another directory: `workdir` moves the relative path.
            opencode_bash_in("src", "echo x > lib.rs"),
            opencode_bash_in("docs", "rm -f ../src/lib.rs"),
            opencode_bash_in(&ws.join("src").display().to_string(), "echo x > lib.rs"),
        ]);
        calls
    });
}

/// OpenCode's plugin may rewrite a `bash` call's command where the person set no shell
/// permission rule (`shell_rules: false`): every writing form is refused, or rewritten to run
/// under the real runner and run, and no claimed file changes. With a rule (or no word on
/// rules) nothing is rewritten.
#[test]
fn opencode_without_shell_rules_every_writing_form_is_refused_or_runs_confined() {
    let room = Room::new();
    seed_unbounded(&room);
    room.start(OPENCODE);
    let ws = room.ws();
    let before = room.claimed_bytes();
    let probe = Command::new(env!("CARGO_BIN_EXE_acc-hook"))
        .args(["guard-exec", "--", "true"])
        .output()
        .unwrap();
    if probe.status.code() == Some(125) {
        eprintln!("skipped: the kernel refuses the namespace here: {probe:?}");
        return;
    }
    let opaque = [
        "python3 -c \"open('src/lib.rs','w').write('x')\"",
        "python3 -c \"import os; os.rename('src', 'old')\"",
        "bash -c 'echo x > src/lib.rs'",
        "eval 'rm -rf src'",
        "find src -type f -delete",
    ];
    let runner = format!(
        "'{}' 'guard-exec'",
        std::env::current_exe().unwrap().display()
    );
    let mut rewritten = 0;
    for form in UNBOUNDED.iter().chain(&opaque) {
        let mut p = room.payload(OPENCODE, "ToolExecuteBefore");
        p["tool_name"] = json!("bash");
        p["tool_input"] = json!({ "command": form, "description": "x" });
        for rules in [json!(true), Value::Null] {
            p["shell_rules"] = rules;
            let run = room.run(OPENCODE, "ToolExecuteBefore", &p);
            assert!(
                !run.stdout.contains("guard-exec"),
                "{form:?} was rewritten although rules may apply: {run:?}"
            );
        }
        p["shell_rules"] = json!(false);
        let run = room.run(OPENCODE, "ToolExecuteBefore", &p);
        if !is_deny(&run) {
            let answer: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
            assert_eq!(answer["decision"], "allow", "{form:?}: {run:?}");
            let line = answer["args"]["command"]
                .as_str()
                .unwrap_or_else(|| panic!("{form:?} was allowed unconfined: {run:?}"));
            let rest = line.strip_prefix(&runner).expect(line);
            let real = format!("'{}' 'guard-exec'{rest}", env!("CARGO_BIN_EXE_acc-hook"));
            room.carry_out(&Act::Shell(real));
            rewritten += 1;
        }
        assert_eq!(
            room.claimed_bytes(),
            before,
            "{form:?} changed a claimed file"
        );
    }
    assert!(rewritten >= opaque.len(), "{rewritten} rewritten");
    assert!(!ws.join("old").exists());
}

/// The real `acc-hook copilot <event>` started by a process named `copilot` with `args`
/// (as Copilot CLI starts its hooks: the adapter reads the client's flags from that
/// process), on the sandbox's store and clock.
fn under_copilot(room: &Room, args: &[&str], event: &str, payload: &Value) -> HookRun {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    let home = room.sb.root().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // `bash` named `copilot`, its command line holding the client's flags (which it
    // shifts away): the hook is not its last command, so it forks the hook and stays the
    // hook's parent.
    let mut child = Command::new("bash")
        .arg0("copilot")
        .args(["-c", "shift \"$1\"; \"$@\"; exit $?", "copilot"])
        .arg((args.len() + 1).to_string())
        .args(args)
        .args([env!("CARGO_BIN_EXE_acc-hook"), "copilot", event])
        .current_dir(room.ws())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("COPILOT_HOME", home.join(".copilot"))
        .env("ACC_DATA_HOME", room.sb.data())
        .env(acc_runtime::hook::settings::TEST_CLOCK_VAR, FIXED_CLOCK)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    HookRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Copilot CLI started with `--yolo` (every call runs, every path is named unasked, no deny
/// rule) lets acc rewrite a `bash` call through `modifiedArgs`: the hook runs as the real
/// program under a parent named `copilot`, and every writing form is refused, or rewritten
/// and run under the real runner as the client would run it; no claimed file changes. The
/// same client started without those flags gets no rewrite.
#[test]
fn copilot_under_yolo_every_writing_form_is_refused_or_runs_confined() {
    let room = Room::new();
    seed_unbounded(&room);
    let ws = room.ws();
    let before = room.claimed_bytes();
    let probe = Command::new(env!("CARGO_BIN_EXE_acc-guard"))
        .args(["--", "true"])
        .output()
        .unwrap();
    if probe.status.code() == Some(125) {
        eprintln!("skipped: the kernel refuses the namespace here: {probe:?}");
        return;
    }
    let start = room.payload(COPILOT, COPILOT.start);
    let run = under_copilot(&room, &["--yolo"], COPILOT.start, &start);
    assert_eq!(run.code, 0, "{run:?}");
    let call = |form: &str| {
        let mut p = room.payload(COPILOT, COPILOT.tool);
        p["toolName"] = json!("bash");
        p["toolArgs"] = json!({ "command": form, "description": "x", "mode": "sync" });
        p
    };
    let runner = env!("CARGO_BIN_EXE_acc-guard");
    let mut rewritten = 0;
    for form in UNBOUNDED.iter().chain(OPAQUE) {
        let run = under_copilot(&room, &["--yolo"], COPILOT.tool, &call(form));
        if !is_deny(&run) {
            assert_eq!(run.code, 0, "{form:?}: {run:?}");
            let answer: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
            assert_eq!(answer.get("permissionDecision"), None, "{form:?}: {run:?}");
            let args = &answer["modifiedArgs"];
            assert_eq!(args["description"], "x", "{form:?}: {run:?}");
            let line = args["command"]
                .as_str()
                .unwrap_or_else(|| panic!("{form:?} was allowed unconfined: {run:?}"));
            assert!(line.starts_with(&quote(runner)), "{form:?}: {line}");
            room.carry_out(&Act::Shell(line.to_owned()));
            rewritten += 1;
        }
        assert_eq!(
            room.claimed_bytes(),
            before,
            "{form:?} changed a claimed file"
        );
        assert!(!ws.join("src/brand-new.rs").exists(), "{form:?}");
    }
    assert!(rewritten >= OPAQUE.len(), "{rewritten} rewritten");
    // Where the client would ask (or a deny rule could match the original command), the
    // call is judged as it comes and a form the reader cannot bound is refused.
    for args in [
        &[][..],
        &["--allow-all-tools"],
        &["--yolo", "--deny-tool=shell(rm)"],
    ] {
        let run = under_copilot(&room, args, COPILOT.tool, &call(UNBOUNDED[0]));
        assert!(is_deny(&run), "{args:?}: {run:?}");
        assert!(!run.stdout.contains("modifiedArgs"), "{args:?}: {run:?}");
    }
    // A write outside the claim, rewritten, still lands.
    let run = under_copilot(
        &room,
        &["--yolo"],
        COPILOT.tool,
        &call("echo x > docs/notes.md"),
    );
    let answer: Value = serde_json::from_str(&run.stdout).unwrap_or(Value::Null);
    if let Some(line) = answer["modifiedArgs"]["command"].as_str() {
        room.carry_out(&Act::Shell(line.to_owned()));
    } else {
        assert!(!is_deny(&run), "{run:?}");
        room.carry_out(&Act::Shell("echo x > docs/notes.md".to_owned()));
    }
    assert_eq!(
        std::fs::read_to_string(ws.join("docs/notes.md")).unwrap(),
        "x\n"
    );
}
