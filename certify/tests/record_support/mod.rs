//! Synthetic recordings for the `record_*` tests: what a run of a real client would have
//! observed, built by hand so the writer, fixtures and redaction can be tested offline.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use acc_certify::clients::Client;
use acc_certify::record::kit::observations::{
    FileFact, HookFact, MessageFact, OBSERVATIONS_SCHEMA, Observations, OutcomeShape, RequestFact,
    RunFacts, SessionFact, StreamShape, ToolResultFact,
};
use acc_certify::record::kit::run::Bundle;
use acc_certify::record::kit::run::ScenarioRun;
use acc_certify::record::kit::tuple::Tuple;
use acc_certify::record::recording::ClientRecording;
use acc_certify::record::scenario::{PEER_BODY, PEER_SUBJECT, PROMPT, Scenario, plan};
use acc_certify::record::scenarios::expectations;
use acc_certify::record::scenarios::live_wake::{LiveFacts, LivePhase};
use acc_certify::record::scenarios::session_resume::{ResumeFacts, ResumeRun, ResumeSession};
use acc_certify::record::scenarios::solo_control::judge_control;
use acc_certify::record::scenarios::{judge, recipe};
use serde_json::json;

pub const TRANSCRIPT: &str = "<home>/.claude/projects/-ws/3f1c9e2a-transcript.jsonl";
pub const FILE_CONTENT: &str = "written by the model double\n";
pub const TOOL_OUTPUT: &str = "File created successfully at: <ws>/free.txt";

pub fn tuple(version: &str) -> Tuple {
    Tuple {
        adapter: "claude-code".into(),
        client: "claude-code".into(),
        version: version.into(),
        platform: "linux-x64".into(),
    }
}

fn hook(event: &str, kind: &str, tool: Option<&str>) -> HookFact {
    HookFact {
        event: Some(event.into()),
        kind: Some(kind.into()),
        tool: tool.map(str::to_owned),
        refusal: None,
        payload_keys: vec![
            "cwd".into(),
            "hook_event_name".into(),
            "session_id".into(),
            "transcript_path".into(),
        ],
        outcome: OutcomeShape {
            exit_code: Some(0),
            stdout: StreamShape::Empty,
            stderr: StreamShape::Empty,
        },
    }
}

fn request(n: u64) -> RequestFact {
    RequestFact {
        n,
        method: "POST".into(),
        path: "/v1/messages".into(),
        tool_results: Vec::new(),
        peer_blocks: Vec::new(),
        acc_lines: Vec::new(),
    }
}

/// Observations of `scenario` as a passing (or, with `pass` false, failing) Claude run;
/// text fields carry the prompt, peer text and tool output a run really sees.
pub fn observations(tuple: &Tuple, scenario: Scenario, pass: bool) -> Observations {
    let mut obs = Observations {
        schema_version: OBSERVATIONS_SCHEMA,
        scenario,
        adapter: tuple.adapter.clone(),
        client: tuple.client.clone(),
        version: tuple.version.clone(),
        platform: tuple.platform.clone(),
        protocol: "anthropic-messages".into(),
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        expect: expectations(scenario),
        // A failing run's hooks never reached acc: no session of the adapter.
        sessions: vec![SessionFact {
            participant_id: "claude-code-abc123".into(),
            harness: "claude-code".into(),
            state: if pass { "closed" } else { "open" }.into(),
            adapter_id: Some("claude-code".into()),
            client_name: Some("claude-code".into()),
            client_version: Some(tuple.version.clone()),
            end_reason: pass.then(|| "other".to_owned()),
            certify_candidates: Vec::new(),
        }]
        .into_iter()
        .filter(|_| pass)
        .collect(),
        message: None,
        files: Vec::new(),
        requests: vec![request(1)],
        hooks: Some(
            [
                Some(hook("SessionStart", "sessionStart", None)),
                Some(hook("UserPromptSubmit", "beforeTurn", None)),
                // A client that passes closes its session through its own end hook.
                pass.then(|| hook("SessionEnd", "sessionEnd", None)),
            ]
            .into_iter()
            .flatten()
            .collect(),
        ),
        control: None,
        live: None,
        detected_writes: Vec::new(),
        resume: None,
        quit: None,
        children: None,
        idle: None,
        reply: None,
    };
    obs.requests[0].acc_lines = Vec::new();
    if let (Some(target), Some(reason)) = (
        recipe(scenario).claimed_target(),
        recipe(scenario).deny_reason(),
    ) {
        obs.files = vec![
            FileFact {
                path: target.into(),
                exists: !pass,
                sha256: None,
            },
            FileFact {
                path: "free.txt".into(),
                exists: true,
                sha256: None,
            },
        ];
        let denied = ToolResultFact {
            call_id: "toolu_1".into(),
            text: format!("PreToolUse:Write hook error: {reason} (session session_1)"),
            is_error: true,
        };
        let written = ToolResultFact {
            call_id: "toolu_2".into(),
            text: format!("{TOOL_OUTPUT}\n{FILE_CONTENT}"),
            is_error: false,
        };
        let mut last = request(3);
        last.tool_results = vec![denied, written];
        obs.requests.push(last);
        let tool = if scenario == Scenario::GuardShell {
            "Bash"
        } else {
            "Write"
        };
        obs.hooks
            .as_mut()
            .unwrap()
            .push(hook("PreToolUse", "beforeTool", Some(tool)));
    }
    if scenario == Scenario::NextTurn {
        obs.message = Some(MessageFact {
            message_id: "message_1".into(),
            recipient: "agent".into(),
            receipt_state: Some(if pass { "offered" } else { "queued" }.into()),
        });
        obs.requests[0].peer_blocks = vec![format!(
            "```acc-peer-message\nuntrusted peer message\nmessageId: message_1\nsubject: {PEER_SUBJECT}\nbody: {PEER_BODY}\n```"
        )];
        obs.requests[0].acc_lines = vec!["ACC (load the acc skill):".into()];
        if !pass {
            // Shown one turn late: not next-turn delivery.
            obs.requests.push(obs.requests[0].clone());
            obs.requests[0].peer_blocks.clear();
            obs.requests[1].n = 2;
        }
        obs.control = Some(Box::new(observations(tuple, Scenario::SoloControl, true)));
    }
    if scenario == Scenario::ReplyRoute {
        // The answer to the agent's question, shown in the new session's first request.
        obs.message = Some(MessageFact {
            message_id: "message_2".into(),
            recipient: "agent".into(),
            receipt_state: Some(if pass { "offered" } else { "queued" }.into()),
        });
        obs.reply = Some(acc_certify::record::kit::facts::ReplyFacts {
            question_id: "message_1".into(),
            question_thread: "thread_1".into(),
            question_session_state: Some("closed".into()),
            answer_id: "message_2".into(),
            answer_thread: "thread_1".into(),
            answer_in_reply_to: Some("message_1".into()),
            answer_to: vec!["agent".into()],
            question_session_harness: Some(obs.adapter.clone()),
            question_session_state_when_answered: Some("closed".into()),
            asking_run: None,
        });
        for s in &mut obs.sessions {
            s.participant_id = "agent".into();
        }
        // The asking run's session, closed, beside the new conversation's.
        if let Some(first) = obs.sessions.first() {
            let mut asking = first.clone();
            asking.state = "closed".into();
            obs.sessions.push(asking);
        }
        if pass {
            obs.requests[0].peer_blocks = vec![format!(
                "```acc-peer-message\nuntrusted peer message\nmessageId: message_2\nthreadId: thread_1\nsubject: Re: which port?\nbody: 8080\n```"
            )];
        }
    }
    if scenario == Scenario::SafePoint {
        // The note sent while the first call ran: shown with its result (or, failing,
        // never), then held once in the history.
        obs.message = Some(MessageFact {
            message_id: "message_2".into(),
            recipient: "agent".into(),
            receipt_state: Some(if pass { "offered" } else { "queued" }.into()),
        });
        let block = format!(
            "```acc-peer-message\nuntrusted peer message\nmessageId: message_2\nsubject: {PEER_SUBJECT}\nbody: {PEER_BODY}\n```"
        );
        for (n, results) in [(2, 1), (3, 2)] {
            let mut after = request(n);
            after.tool_results = (0..results)
                .map(|i| ToolResultFact {
                    call_id: format!("toolu_{i}"),
                    text: TOOL_OUTPUT.into(),
                    is_error: false,
                })
                .collect();
            if pass {
                after.peer_blocks = vec![block.clone()];
            }
            obs.requests.push(after);
        }
    }
    if scenario == Scenario::Heartbeat && pass {
        obs.hooks
            .as_mut()
            .unwrap()
            .push(hook("SessionHeartbeat", "heartbeat", None));
    }
    if scenario == Scenario::StartupInjection && pass {
        obs.requests[0].acc_lines = vec!["ACC peers here (address them with --to): peer".into()];
        obs.hooks.as_mut().unwrap()[0].outcome.stdout = StreamShape::Json {
            keys: vec!["hookSpecificOutput".into()],
        };
    }
    if scenario == Scenario::BeforeRead {
        // Passing: acc's refusal, then the control file; failing: the refused file read.
        use acc_certify::record::scenarios::before_read::{
            CONTROL_MARKER, REFUSAL, REFUSED_MARKER,
        };
        let first = if pass { REFUSAL } else { REFUSED_MARKER };
        let mut last = request(3);
        last.tool_results = [first, CONTROL_MARKER]
            .iter()
            .enumerate()
            .map(|(i, text)| ToolResultFact {
                call_id: format!("toolu_{i}"),
                text: (*text).into(),
                is_error: false,
            })
            .collect();
        obs.requests.push(last);
        obs.hooks
            .as_mut()
            .unwrap()
            .push(hook("PreToolUse", "beforeTool", Some("Read")));
    }
    if scenario == Scenario::ChildSessions && pass {
        // Passing: the subagent's session is a child of the client's, refused as itself.
        use acc_certify::record::scenarios::child_sessions::{
            CLAIMED, ChildFacts, LinkedSession, RefusalFact, seeded_digest,
        };
        obs.files[0] = FileFact {
            path: CLAIMED.into(),
            exists: true,
            sha256: Some(seeded_digest()),
        };
        let session = |label: &str, parent: Option<&str>| LinkedSession {
            label: label.into(),
            participant_id: "claude-code-abc123".into(),
            harness: "claude-code".into(),
            state: "closed".into(),
            parent: parent.map(str::to_owned),
        };
        obs.children = Some(ChildFacts {
            delegations: vec!["tool_use:Agent step=0".into()],
            child_requests: 3,
            sessions: vec![session("main", None), session("child-1", Some("main"))],
            refusals: vec![RefusalFact {
                target: CLAIMED.into(),
                by: "child-1".into(),
            }],
        });
        let hooks = obs.hooks.as_mut().unwrap();
        hooks.push(hook("SubagentStart", "childStart", None));
        hooks.push(hook("SubagentStop", "childEnd", None));
    }
    if scenario == Scenario::SessionResume {
        obs.resume = Some(resume_facts(pass));
    }
    if scenario == Scenario::LiveWake {
        obs.live = Some(live_facts(pass));
        obs.requests[0].peer_blocks = vec![format!(
            "```acc-peer-message\nuntrusted peer message\nmessageId: message_idle\nmessageId: message_busy\nmessageId: message_cont\nsubject: {PEER_SUBJECT}\nbody: {PEER_BODY}\n```"
        )];
    }
    obs
}

/// A conversation resumed as its participant (or, failing, as a new one would be named).
fn resume_facts(pass: bool) -> ResumeFacts {
    use acc_certify::record::kit::observations::RunFacts;
    let session = |label: &str, participant: &str| ResumeSession {
        label: label.into(),
        participant_id: participant.into(),
        state: "closed".into(),
    };
    let run = |carries: bool, sessions: Vec<ResumeSession>| ResumeRun {
        run: RunFacts {
            exit_code: Some(0),
            timed_out: false,
            network: Vec::new(),
        },
        conversation_requests: 1,
        carries_first_answer: carries,
        hook_kinds: vec!["sessionStart".into(), "beforeTurn".into()],
        client_sessions: vec!["c1".into()],
        sessions,
    };
    let again = if pass { "claude-code-2" } else { "claude-code" };
    ResumeFacts {
        held_name: "claude-code".into(),
        first: run(false, vec![session("s1", "claude-code-2")]),
        second: run(
            true,
            vec![session("s1", "claude-code-2"), session("s2", again)],
        ),
    }
}

/// What a passing (or failing: the wake never ran a turn) live-wake run observed.
fn live_facts(pass: bool) -> LiveFacts {
    use acc_certify::record::scenarios::live_wake::{BUSY, CONSENT_OFF, CONTINUE, IDLE, KILLED};
    let phase = |name: &str, id: &str, outcome: &str, end: &str, offers: &[&str]| LivePhase {
        name: name.into(),
        message_id: Some(id.into()),
        policy: if name == CONSENT_OFF { "off" } else { "all" }.into(),
        sender_exit: Some(0),
        sender_outcome: Some(outcome.into()),
        sender_reason: match outcome {
            "notOffered" => Some("delivery_off".into()),
            "failed" => Some("native_session_unavailable".into()),
            _ => None,
        },
        receipt_after_send: Some("queued".into()),
        receipt_while_busy: (name == BUSY || name == CONTINUE).then(|| "queued".into()),
        receipt_at_end: Some(end.into()),
        offers: offers.iter().map(|o| o.to_string()).collect(),
        requests_before: 0,
        requests_after: usize::from(pass && name == IDLE),
    };
    let shown = if pass { "offered" } else { "queued" };
    let ok: &[&str] = if pass { &["ok:next-turn"] } else { &[] };
    LiveFacts {
        bound: true,
        protocol_contract: Some("claude-code-inbox-socket-v1".into()),
        phases: vec![
            phase(CONSENT_OFF, "message_off", "notOffered", "queued", &[]),
            phase(IDLE, "message_idle", "woken", shown, ok),
            phase(BUSY, "message_busy", "woken", shown, ok),
            phase(CONTINUE, "message_cont", "notOffered", shown, ok),
            phase(
                KILLED,
                "message_killed",
                "failed",
                "queued",
                &["failed:native_session_unavailable"],
            ),
        ],
    }
}

/// A scenario run around `observations`, with a bundle holding the raw texts a run keeps.
pub fn run(observations: Observations) -> ScenarioRun {
    let scenario = observations.scenario;
    let verdicts = judge(scenario, &observations);
    let control = (scenario == Scenario::SoloControl).then(|| judge_control(&observations));
    let bundle = Bundle {
        requests: Vec::new(),
        stdout: "Done.\n".into(),
        stderr: String::new(),
        hooks: Some(format!(
            "{}\n",
            json!({"adapter": "claude-code", "args": ["UserPromptSubmit"], "payload": {"prompt": PROMPT, "transcript_path": TRANSCRIPT}, "kind": "beforeTurn", "refusal": null, "outcome": {"stdout": PEER_BODY, "stderr": "", "exitCode": 0}})
        )),
        observations: observations.clone(),
        run: json!({"command": ["<client>/claude", "-p", "<prompt>"], "durationMs": 1}),
    };
    ScenarioRun {
        scenario,
        observations,
        verdicts,
        control,
        kernel_guard: None,
        bridge_guard: None,
        quit: None,
        bundle,
    }
}

/// A whole recording of every scenario.
pub fn recording(version: &str, pass: bool, observed_at: &str) -> ClientRecording {
    let tuple = tuple(version);
    ClientRecording {
        client: Client::ClaudeCode,
        tuple: tuple.clone(),
        observed_at: observed_at.into(),
        runs: plan(&[])
            .into_iter()
            .filter(|s| !recipe(*s).is_pair())
            .map(|s| run(observations(&tuple, s, pass)))
            .collect(),
    }
}

/// A repository with one adapter directory holding no evidence yet: `adapter.json` as
/// shipped but with nothing declared, an empty certification and provenance.
pub fn repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let adapter = dir.path().join("adapters/claude-code");
    fs::create_dir_all(adapter.join("fixtures")).unwrap();
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/claude-code/adapter.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(shipped).unwrap()).unwrap();
    manifest["capabilities"] = json!({});
    // Its native contract is anchored on evidence this empty repository does not hold.
    manifest.as_object_mut().unwrap().remove("nativeDelivery");
    fs::write(
        adapter.join("adapter.json"),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
    fs::write(adapter.join("certification.json"), "{\"evidence\": []}\n").unwrap();
    fs::write(
        adapter.join("fixtures/certification-provenance.json"),
        "{\"schemaVersion\": 1, \"captures\": []}\n",
    )
    .unwrap();
    fs::write(dir.path().join("Cargo.toml"), "[workspace]\n").unwrap();
    (dir, adapter)
}

/// Every file under `dir` with its bytes, sorted by relative path.
pub fn snapshot_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(dir).unwrap().display().to_string(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}
