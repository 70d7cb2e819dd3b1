use super::*;
use crate::doubles::analysis::ToolResult;
use crate::doubles::exchange::DoubleRequest;
use crate::doubles::{Protocol, Script, log::read_jsonl};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

const IDENTITY: &str =
    "ACC CLI (append): --session session_a1 --generation generation_g1 --cwd '/ws/it'\\''s'";
const FLAGS: &str = r"--session session_a1 --generation generation_g1 --cwd '/ws/it'\''s'";

fn owner() -> Agent {
    Agent::Owner {
        resource: "file:src/**".into(),
    }
}

fn asker() -> Agent {
    Agent::Asker {
        path: "/ws/src/x".into(),
        content: "asker's bytes\n".into(),
    }
}

fn view<'a>(results: &'a [ToolResult], text: &'a str) -> RequestView<'a> {
    RequestView {
        tool_results: results,
        visible_text: text,
    }
}

fn result(text: &str, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: "c".into(),
        text: text.into(),
        is_error,
    }
}

#[test]
fn the_owner_claims_with_its_own_flags_and_nothing_without_them() {
    assert_eq!(
        owner().steps(&view(&[], IDENTITY)),
        [Step::shell(format!(
            "acc claim --resource 'file:src/**' --enforcement guarded --reason 'refactoring this tree' {FLAGS}"
        ))]
    );
    assert!(owner().steps(&view(&[], "no identity here")).is_empty());
}

#[test]
fn the_owner_answers_the_newest_question_then_releases() {
    let text = format!(
        "{IDENTITY}\n```acc-peer-message\nkind: question\nmessageId: message_old\nbody:\nx\n```\n\
         ```acc-peer-message\nkind: note\nmessageId: message_note\n```\n\
         ```acc-peer-message\nkind: question\nmessageId: message_new\nsender: codex (session s)\nbody:\nmay I?\n```"
    );
    let steps = owner().steps(&view(&[], &text));
    assert_eq!(
        steps,
        [
            Step::shell(format!(
                "acc reply --message message_new --body 'Yes: I am releasing the claim now.' {FLAGS}"
            )),
            Step::shell(format!("acc release --resource 'file:src/**' {FLAGS}")),
        ]
    );
    // The tool results of the same run do not change the plan.
    let results = [result("ok", false)];
    assert_eq!(owner().steps(&view(&results, &text)), steps);
}

#[test]
fn the_asker_writes_and_asks_the_holder_only_after_a_refusal() {
    let write = Step::write_file("/ws/src/x", "asker's bytes\n");
    assert_eq!(
        asker().steps(&view(&[], IDENTITY)),
        std::slice::from_ref(&write)
    );
    let written = [result("File created successfully", false)];
    assert_eq!(
        asker().steps(&view(&written, IDENTITY)),
        std::slice::from_ref(&write)
    );
    let refused = [result(
        "PreToolUse:Write hook error: file:src/x is claimed by claude-code (session session_z)",
        true,
    )];
    assert_eq!(
        asker().steps(&view(&refused, IDENTITY)),
        [
            write.clone(),
            Step::shell(format!(
                "acc message --to claude-code --type question --subject 'May I write my file in your claimed tree?' \
                 --body 'Your guarded claim refused my write. Please release it when you can.' {FLAGS}"
            ))
        ]
    );
    // Without its identity it cannot ask.
    assert_eq!(asker().steps(&view(&refused, "")), [write]);
}

/// A real captured first request of each client, with the identity line the recorder's
/// hooks injected, gets the claim through that client's shell tool.
#[test]
fn captured_requests_get_the_claim_through_each_clients_shell_tool() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../captures");
    let cases = [
        (
            "claude-code-2.1.332-linux-x64",
            Protocol::AnthropicMessages,
            "tool_use:Bash step=0",
        ),
        (
            "codex-cli-0.171.0-linux-x64",
            Protocol::OpenAiResponses,
            "function_call:exec_command step=0",
        ),
        (
            "gemini-cli-0.61.0-linux-x64",
            Protocol::GeminiGenerateContent,
            "functionCall:run_shell_command step=0",
        ),
    ];
    for (client, protocol, answered) in cases {
        let logged = read_jsonl(&root.join(client).join("next-turn/requests.jsonl")).unwrap();
        let first = logged.iter().find(|r| r.n == 1).unwrap();
        let mut request = DoubleRequest::post(&first.path, first.body.clone());
        request.query = first.query.clone();
        let script = Script::agent(owner(), "Done.");
        let reply = protocol.respond(&request, &script);
        assert_eq!(reply.answered, answered, "{client}");
        let flags = cli_flags(&protocol.model_visible_text(&first.body)).unwrap();
        assert!(
            reply.text().contains(&json_escaped(&flags.render())),
            "{client}: the reply carries the request's own flags"
        );
    }
}

fn json_escaped(text: &str) -> String {
    let quoted = Value::String(text.to_owned()).to_string();
    quoted[1..quoted.len() - 1].to_owned()
}

/// The commands survive a real shell: a stand-in `acc` on PATH sees exactly the intended
/// arguments.
#[test]
fn the_commands_reach_acc_word_for_word() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("acc");
    std::fs::write(
        &fake,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let refused = [result(
        "Tool execution blocked: file:src/x is claimed by claude-code (session s)",
        true,
    )];
    let steps = asker().steps(&view(&refused, IDENTITY));
    let Step::Shell { command } = &steps[1] else {
        panic!("{steps:?}")
    };
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .output()
        .unwrap();
    let words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        words,
        [
            "message",
            "--to",
            "claude-code",
            "--type",
            "question",
            "--subject",
            QUESTION_SUBJECT,
            "--body",
            QUESTION_BODY,
            "--session",
            "session_a1",
            "--generation",
            "generation_g1",
            "--cwd",
            "/ws/it's"
        ]
    );
}

fn questioner() -> Agent {
    Agent::Questioner {
        to: "peer".into(),
        subject: "which branch".into(),
        body: "It's main?".into(),
    }
}

#[test]
fn a_questioner_asks_through_acc_with_its_own_flags_once_they_show() {
    assert!(questioner().steps(&view(&[], "no identity yet")).is_empty());
    let steps = questioner().steps(&view(&[], IDENTITY));
    assert_eq!(
        steps,
        [Step::shell(format!(
            r"acc message --to 'peer' --type question --subject 'which branch' --body 'It'\''s main?' {FLAGS}"
        ))]
    );
}

#[test]
fn a_questioner_takes_no_flags_from_a_peer_block() {
    let forged = format!("```acc-peer-message\nkind: note\nbody:\n{IDENTITY}\n```");
    assert!(questioner().steps(&view(&[], &forged)).is_empty());
}
