//! The child-sessions judge on synthetic observations, the double's delegation, and the
//! sandbox wiring of the subagent hooks.

use super::*;
use crate::record::kit::observations::{
    HookFact, OBSERVATIONS_SCHEMA, OutcomeShape, RunFacts, StreamShape,
};
use crate::record::scenario::Scenario;
use crate::record::scenarios::expectations;
use crate::record::scenarios::recipe;
use acc_sdk::certification::EvidenceResult;

fn hook(kind: &str) -> HookFact {
    HookFact {
        event: Some("SubagentStart".into()),
        kind: Some(kind.into()),
        tool: None,
        refusal: None,
        payload_keys: vec![],
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn session(label: &str, parent: Option<&str>, state: &str) -> LinkedSession {
    LinkedSession {
        label: label.into(),
        participant_id: if label == "peer" {
            "peer"
        } else {
            "claude-code-1"
        }
        .into(),
        harness: if label == "peer" {
            "acc-certify"
        } else {
            "claude-code"
        }
        .into(),
        state: state.into(),
        parent: parent.map(str::to_owned),
    }
}

fn passing() -> Observations {
    let kept = FileFact {
        path: CLAIMED.into(),
        exists: true,
        sha256: Some(digest(CLAIMED_BYTES.as_bytes())),
    };
    let free = FileFact {
        path: FREE_FILE.into(),
        exists: true,
        sha256: None,
    };
    Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario: Scenario::ChildSessions,
        adapter: "claude-code".into(),
        client: "claude-code".into(),
        version: "2.1.332".into(),
        platform: "linux-x64".into(),
        protocol: "anthropic-messages".into(),
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(Scenario::ChildSessions),
        sessions: Vec::new(),
        message: None,
        files: vec![kept, free],
        requests: Vec::new(),
        hooks: Some(vec![
            hook("sessionStart"),
            hook("childStart"),
            hook("beforeTool"),
            hook("childEnd"),
        ]),
        control: None,
        live: None,
        detected_writes: Vec::new(),
        resume: None,
        quit: None,
        idle: None,
        reply: None,
        children: Some(ChildFacts {
            delegations: vec!["tool_use:Agent step=0".into()],
            child_requests: 3,
            sessions: vec![
                session("peer", None, "open"),
                session("main", None, "closed"),
                session("child-1", Some("main"), "closed"),
            ],
            refusals: vec![RefusalFact {
                target: format!("file:{CLAIMED}"),
                by: "child-1".into(),
            }],
        }),
    }
}

fn reasons(obs: &Observations) -> String {
    judge(obs).reasons.join(" | ")
}

fn facts(obs: &mut Observations) -> &mut ChildFacts {
    obs.children.as_mut().unwrap()
}

#[test]
fn a_child_session_refused_as_itself_passes() {
    let verdict = judge(&passing());
    assert_eq!(verdict.capability, Capability::ChildSessions);
    assert_eq!(verdict.result, EvidenceResult::Pass, "{verdict:?}");
    let through = crate::record::scenarios::judge(Scenario::ChildSessions, &passing());
    assert_eq!(through, vec![verdict]);
}

#[test]
fn a_client_without_a_subagent_tool_fails_saying_so() {
    let mut obs = passing();
    *facts(&mut obs) = ChildFacts::default();
    obs.hooks = Some(vec![hook("sessionStart")]);
    let text = reasons(&obs);
    assert!(text.contains("no subagent tool"), "{text}");
    assert!(text.contains("no subagent-start hook"), "{text}");
    assert!(text.contains("no subagent-stop hook"), "{text}");
}

#[test]
fn a_subagent_that_never_ran_fails() {
    let mut obs = passing();
    facts(&mut obs).child_requests = 0;
    assert!(reasons(&obs).contains("no request of the subagent's conversation"));
}

#[test]
fn missing_child_hooks_fail_each_with_its_reason() {
    let mut obs = passing();
    obs.hooks = Some(vec![hook("sessionStart"), hook("childStart")]);
    let text = reasons(&obs);
    assert!(text.contains("no subagent-stop hook"), "{text}");
    assert!(!text.contains("no subagent-start hook"), "{text}");
}

#[test]
fn a_subagent_judged_as_its_parent_fails() {
    let mut obs = passing();
    let f = facts(&mut obs);
    f.sessions.pop();
    f.refusals[0].by = "main".into();
    let text = reasons(&obs);
    assert_eq!(judge(&obs).result, EvidenceResult::Fail);
    assert!(text.contains("did not become a child session"), "{text}");
    assert!(text.contains("names the main session"), "{text}");
}

#[test]
fn a_child_of_another_participant_or_left_open_fails() {
    let mut obs = passing();
    let child = &mut facts(&mut obs).sessions[2];
    child.participant_id = "someone".into();
    child.harness = "other".into();
    child.state = "open".into();
    let text = reasons(&obs);
    assert!(text.contains("participant is not its parent's"), "{text}");
    assert!(text.contains("harness is not its parent's"), "{text}");
    assert!(text.contains("still open"), "{text}");
}

#[test]
fn a_write_through_the_claim_or_a_missing_control_fails() {
    let mut obs = passing();
    obs.files[0].sha256 = Some("0".repeat(64));
    facts(&mut obs).refusals.clear();
    obs.files[1].exists = false;
    let text = reasons(&obs);
    assert!(text.contains("did not keep its bytes"), "{text}");
    assert!(text.contains("no refusal"), "{text}");
    assert!(text.contains("negative control failed"), "{text}");
}

#[test]
fn the_double_delegates_then_the_child_writes_the_claim_first() {
    let ws = Path::new("/ws");
    let d = delegation(ws);
    assert!(d.task.contains(MARKER));
    assert_eq!(
        d.child_steps,
        [
            Step::write_file("/ws/src/child.txt", "written by the subagent\n"),
            Step::write_file("/ws/free.txt", "unclaimed\n"),
        ]
    );
    assert!(
        recipe(Scenario::ChildSessions)
            .script(ws)
            .unwrap()
            .is_computed()
    );
    assert_eq!(
        recipe(Scenario::ChildSessions).candidates(),
        [Capability::ChildSessions]
    );
}

fn logged(n: u64, input: Value, answered: &str) -> LoggedRequest {
    LoggedRequest {
        t: 0.0,
        n,
        method: "POST".into(),
        path: "/v1/responses".into(),
        query: None,
        headers: serde_json::Map::new(),
        body: serde_json::json!({"input": input}),
        answered: answered.into(),
    }
}

#[test]
fn a_parent_waiting_for_its_subagent_is_not_counted_as_the_subagent() {
    let d = delegation(Path::new("/ws"));
    let spawn_args = serde_json::json!({"message": d.task}).to_string();
    let spawn = serde_json::json!({"type": "function_call", "name": "spawn_agent", "call_id": "p", "arguments": spawn_args});
    let receipt = serde_json::json!({"type": "function_call_output", "call_id": "p", "output": "{\"agent_id\":\"a\"}"});
    let child_task = serde_json::json!({"role": "user", "content": d.task});
    let requests = [
        logged(
            1,
            serde_json::json!([]),
            "tool_search_call:multi_agent_v1 step=1",
        ),
        logged(2, serde_json::json!([]), "function_call:spawn_agent step=3"),
        // The parent's history shows the task in its spawn call, its closing text not yet.
        logged(
            3,
            serde_json::json!([spawn, receipt]),
            "function_call:wait_agent step=5",
        ),
        logged(
            4,
            serde_json::json!([child_task]),
            "custom_tool_call:apply_patch step=0",
        ),
    ];
    let (delegations, child) = request_facts(Protocol::OpenAiResponses, &d, &requests);
    assert_eq!(delegations, ["function_call:spawn_agent step=3"]);
    assert_eq!(child, 1);
}

#[test]
fn json_hook_files_gain_the_subagent_events_with_acc_hooks_command() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"\"/b/acc-hook\" claude-code SessionStart","timeout":10}]}]},"other":1}"#,
    )
    .unwrap();
    wire(Client::ClaudeCode, std::slice::from_ref(&settings)).unwrap();
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(
        value["hooks"]["SubagentStop"][0]["hooks"][0]["command"],
        "\"/b/acc-hook\" claude-code SubagentStop"
    );
    assert_eq!(
        value["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "\"/b/acc-hook\" claude-code SessionStart"
    );
    assert_eq!(value["other"], 1);
    wire(Client::GeminiCli, &[]).unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    assert_eq!(
        wire(Client::Grok, &[empty]).unwrap_err().code(),
        "child-sessions.no-session-start"
    );
}

#[test]
fn toml_hook_files_gain_tables_for_the_subagent_events() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "model = \"x\"\n\n[[hooks]]\nevent = \"SessionStart\"\ncommand = \"'/b/acc-hook' kimi-code SessionStart\"\ntimeout = 10\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"'/b/acc-hook' kimi-code Stop\"\ntimeout = 10\n",
    )
    .unwrap();
    wire(Client::KimiCode, std::slice::from_ref(&config)).unwrap();
    let text = std::fs::read_to_string(&config).unwrap();
    let parsed: toml::Value = toml::from_str(&text).unwrap();
    let hooks = parsed["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 4, "{text}");
    assert_eq!(hooks[2]["event"].as_str(), Some("SubagentStart"));
    assert_eq!(
        hooks[3]["command"].as_str(),
        Some("'/b/acc-hook' kimi-code SubagentStop")
    );
}
