//! Answer shapes: a wrong shape fails silently in the client, so a deny must be loud and
//! carry its reason (in the shape the real client was seen obeying, where a capture shows
//! it), and an injection must carry its text, be valid JSON when JSON, and say nothing when
//! there is nothing to say.

use std::path::Path;

use acc_sdk::capabilities::Capability;
use acc_sdk::define::Adapter;
use acc_sdk::event::{EventKind, NormalizedEvent, Targets, ToolCall, ToolClass};
use acc_sdk::outcome::HookOutcome;
use acc_sdk::version::version_order;
use serde_json::{Value, json};

use crate::check::{Outcome, Problems};
use crate::context::CheckContext;
use crate::probes::{
    PAYLOAD_HOME, PAYLOAD_WORKSPACE, PayloadCorpus, ProbeTarget, accepted_payloads,
};

/// A deny reason with the characters a shape must escape.
pub const DENY_REASON: &str =
    "acc: file:src/x is claimed by \"peer-bob\" (guarded) \\ ask before writing";

/// Injected text as the projector writes it, with quotes, a backslash and a fence.
pub const INJECT_TEXT: &str = "ACC (load the acc skill):\n```acc-peer-message\nuntrusted peer message\nsubject: \"quoted\" \\ text\n```";

/// A normalised event of `kind`: from the client's own payloads when one normalises to it,
/// else built for the check.
pub fn event_of_kind(ctx: &CheckContext, adapter: &Adapter, kind: EventKind) -> NormalizedEvent {
    let corpus = PayloadCorpus::load(&ctx.root, adapter.id());
    let target = ProbeTarget {
        workspace: Path::new(PAYLOAD_WORKSPACE),
        home: Path::new(PAYLOAD_HOME),
        session_id: "acc-conformance-session",
    };
    let found = accepted_payloads(&corpus, adapter, &[], &target)
        .into_iter()
        .map(|(_, _, _, event)| event)
        .find(|e| e.kind == kind && (kind != EventKind::BeforeTool || e.tool.is_some()));
    found.unwrap_or_else(|| NormalizedEvent {
        kind,
        session_id: "acc-conformance-session".to_owned(),
        cwd: PAYLOAD_WORKSPACE.to_owned(),
        model: None,
        parent_session_id: None,
        tool: (kind == EventKind::BeforeTool).then(|| ToolCall {
            name: "Write".to_owned(),
            class: ToolClass::Write,
            targets: Targets::Paths(vec!["src/x".to_owned()]),
            call_id: None,
            writes_only_targets: false,
        }),
        permission_mode: None,
        end_reason: None,
    })
}

fn is_silent(outcome: &HookOutcome) -> bool {
    outcome.exit_code == 0 && outcome.stdout.trim().is_empty() && outcome.stderr.trim().is_empty()
}

/// Whether `text` appears in `stream`, as is or as a JSON string value inside it.
fn carries(stream: &str, text: &str) -> bool {
    if stream.contains(text) {
        return true;
    }
    fn any_string(value: &Value, text: &str) -> bool {
        match value {
            Value::String(s) => s.contains(text),
            Value::Array(items) => items.iter().any(|v| any_string(v, text)),
            Value::Object(map) => map.values().any(|v| any_string(v, text)),
            _ => false,
        }
    }
    serde_json::from_str::<Value>(stream.trim()).is_ok_and(|v| any_string(&v, text))
}

/// `{kind: empty|text|json, keys}` for one stream: the shape a capture records.
pub fn stream_shape(text: &str) -> Value {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return json!({"kind": "empty"});
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            json!({"kind": "json", "keys": keys})
        }
        _ => json!({"kind": "text"}),
    }
}

fn shape_of(outcome: &HookOutcome) -> Value {
    json!({
        "exitCode": outcome.exit_code,
        "stdout": stream_shape(&outcome.stdout),
        "stderr": stream_shape(&outcome.stderr).get("kind").cloned(),
    })
}

fn captured_shape(outcome: &Value) -> Value {
    json!({
        "exitCode": outcome.get("exitCode").cloned().unwrap_or(Value::Null),
        "stdout": outcome.get("stdout").cloned().unwrap_or(Value::Null),
        "stderr": outcome.get("stderr").and_then(|s| s.get("kind")).cloned(),
    })
}

/// The deny the newest passing `guards.beforeWrite` capture saw acc answer with: the first
/// tool event whose answer was not silent. `None` when there is no such capture or it kept
/// no hook events.
fn captured_deny(ctx: &CheckContext, adapter: &Adapter) -> Option<(String, Value)> {
    let primary = adapter.manifest().client.primary();
    let row = adapter
        .certification()
        .rows(primary, Capability::BeforeWrite.key())
        .filter(|r| r.passed())
        .max_by_key(|r| version_order(&r.version))?;
    let path = ctx.adapter_dir(adapter.id()).join(&row.fixture);
    let fixture: Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    let events = fixture.get("hookEvents")?.as_array()?;
    let deny = events.iter().find_map(|e| {
        let outcome = e.get("outcome")?;
        let tool = e.get("kind").and_then(Value::as_str) == Some("beforeTool");
        let loud = outcome.get("exitCode").and_then(Value::as_i64).unwrap_or(0) != 0
            || outcome
                .get("stdout")
                .and_then(|s| s.get("kind"))
                .and_then(Value::as_str)
                .is_some_and(|k| k != "empty");
        (tool && loud).then(|| outcome.clone())
    })?;
    Some((ctx.adapter_file(adapter.id(), &row.fixture), deny))
}

pub fn deny_shape(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let behaviour = adapter.behaviour();
    if behaviour.guard_write().is_none()
        && behaviour.guard_shell().is_none()
        && behaviour.guard_read().is_none()
    {
        return Outcome::not_applicable(
            "the adapter has no tool guard, so acc never answers with a deny",
        );
    }
    let event = event_of_kind(ctx, adapter, EventKind::BeforeTool);
    let outcome = behaviour.deny_outcome(&event, DENY_REASON);
    let mut problems = Problems::new(ctx.source_file(adapter.id(), &["outcomes.rs"]));
    if outcome.exit_code == 0 && outcome.stdout.trim().is_empty() {
        problems.push(
            "the deny is silent (exit 0, nothing on stdout): the client would run the tool; answer in the client's measured deny shape",
        );
    }
    if !carries(&outcome.stdout, DENY_REASON) && !carries(&outcome.stderr, DENY_REASON) {
        problems.push(
            "the deny does not carry acc's reason: the model must read why the write was refused",
        );
    }
    if !outcome.stdout.trim().is_empty()
        && serde_json::from_str::<Value>(outcome.stdout.trim()).is_err()
    {
        problems.push("the deny's stdout is not valid JSON");
    }
    if let Some((fixture, captured)) = captured_deny(ctx, adapter) {
        let ours = shape_of(&outcome);
        let theirs = captured_shape(&captured);
        if ours != theirs {
            problems.push(format!(
                "the deny's shape {ours} differs from the one the passing guards.beforeWrite capture {fixture} observed ({theirs}): the evidence no longer describes this answer"
            ));
        }
    }
    problems.into_outcome()
}

pub fn inject_shape(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let behaviour = adapter.behaviour();
    let caps = &adapter.manifest().capabilities;
    let mut problems = Problems::new(ctx.source_file(adapter.id(), &["outcomes.rs"]));
    let mut silent = 0;
    let kinds = [
        (EventKind::SessionStart, vec![Capability::StartupInjection]),
        (
            EventKind::BeforeTurn,
            vec![Capability::BeforeTurnInjection, Capability::NextTurn],
        ),
    ];
    for (kind, needs) in &kinds {
        let event = event_of_kind(ctx, adapter, *kind);
        let outcome = behaviour.inject_outcome(&event, INJECT_TEXT);
        let at = kind.as_str();
        if is_silent(&outcome) {
            silent += 1;
            for cap in needs.iter().filter(|c| caps.get(**c)) {
                problems.push(format!(
                    "{cap} is declared true but inject at {at} prints nothing"
                ));
            }
        } else {
            if outcome.exit_code != 0 {
                problems.push(format!(
                    "inject at {at} exits {}: an injection must never block the client",
                    outcome.exit_code
                ));
            }
            if !carries(&outcome.stdout, INJECT_TEXT) {
                problems.push(format!(
                    "inject at {at} does not carry the text on stdout byte for byte"
                ));
            }
            let stdout = outcome.stdout.trim();
            if (stdout.starts_with('{') || stdout.starts_with('['))
                && serde_json::from_str::<Value>(stdout).is_err()
            {
                problems.push(format!("inject at {at} prints invalid JSON"));
            }
        }
        let empty = behaviour.inject_outcome(&event, "");
        if !is_silent(&empty) {
            problems.push(format!(
                "inject of empty text at {at} is not silent: with nothing to show, print nothing"
            ));
        }
    }
    if problems.is_empty() && silent == kinds.len() {
        return Outcome::not_applicable(
            "inject is silent at session start and before a turn (no measured context shape), so peer bodies stay queued",
        );
    }
    problems.into_outcome()
}
