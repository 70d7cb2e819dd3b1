//! Normalisation is a whitelist: unrecognised input is refused (inventing a session
//! attaches the wrong one and looks like it works), nothing the client hands over beyond the
//! whitelisted fields survives, and one session keeps one id across its events.

use acc_sdk::define::Adapter;
use acc_sdk::event::{EventKind, NormalizedEvent};
use serde_json::{Map, Value, json};

use super::sandbox;
use crate::check::{Outcome, Problems};
use crate::context::CheckContext;
use crate::hook_commands::{files_under, installed_commands};
use crate::probes::{PayloadCorpus, ProbeTarget, accepted_payloads, rename_event};
use crate::sandbox::Sandbox;

/// The event name no client uses.
pub const UNKNOWN_EVENT: &str = "AccConformanceNoSuchEvent";

/// Fields that carry what the user or the model wrote (prompts, transcripts, file contents,
/// tool output). Their values are replaced by canaries that must never reach acc.
pub const CANARY_FIELDS: [&str; 16] = [
    "prompt",
    "transcript_path",
    "transcriptPath",
    "tool_response",
    "toolResponse",
    "tool_output",
    "toolOutput",
    "content",
    "contents",
    "llm_request",
    "llm_response",
    "last_assistant_message",
    "prompt_response",
    "new_string",
    "old_string",
    "body",
];

/// The fields the whitelist test also adds when the payload lacks them.
const ADDED_FIELDS: [&str; 4] = ["prompt", "transcript_path", "tool_response", "content"];

const CANARY_PREFIX: &str = "ACC-CANARY-";

fn canary(field: &str) -> String {
    format!("{CANARY_PREFIX}{field}-9f41")
}

/// One accepted input: where it came from, the payload, its arguments, what it became.
struct Accepted {
    label: String,
    payload: Value,
    args: Vec<String>,
    event: NormalizedEvent,
}

/// The client events the adapter's install wires (for clients with no captured payload).
fn installed_events(sb: &Sandbox, adapter: &Adapter) -> Vec<String> {
    let Ok(report) = sb.install(adapter) else {
        return Vec::new();
    };
    let written: Vec<_> = report
        .adapters
        .iter()
        .flat_map(|a| a.files.iter().map(|f| f.path.clone()))
        .collect();
    let mut events: Vec<String> = installed_commands(&files_under(&written))
        .iter()
        .filter_map(|c| c.event().map(str::to_owned))
        .collect();
    events.sort();
    events.dedup();
    events
}

fn accepted(ctx: &CheckContext, adapter: &Adapter, sb: &Sandbox) -> Vec<Accepted> {
    let corpus = PayloadCorpus::load(&ctx.root, adapter.id());
    let events = if corpus.is_empty() {
        installed_events(sb, adapter)
    } else {
        Vec::new()
    };
    let session = format!("acc-conformance-{}-session", adapter.id());
    let target = ProbeTarget {
        workspace: &sb.workspace,
        home: &sb.home,
        session_id: &session,
    };
    accepted_payloads(&corpus, adapter, &events, &target)
        .into_iter()
        .map(|(label, payload, args, event)| Accepted {
            label,
            payload,
            args,
            event,
        })
        .collect()
}

fn none_accepted(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let id = adapter.id();
    Outcome::fail(
        ctx.source_file(id, &["normalize.rs"]),
        format!(
            "the adapter accepts no payload of its client: neither fixtures/payloads/{id}/ nor the known payload families normalise; add the client's real hook payloads under fixtures/payloads/{id}/<run>/<Event>.jsonl"
        ),
    )
}

/// The session-start payload when there is one, else the first.
fn base(inputs: &[Accepted]) -> Option<&Accepted> {
    inputs
        .iter()
        .find(|a| a.event.kind == EventKind::SessionStart)
        .or_else(|| inputs.first())
}

/// Removes, at any depth, every key whose value is the string `value`.
fn remove_value(value: &mut Value, needle: &str) -> usize {
    match value {
        Value::Object(map) => {
            let before = map.len();
            map.retain(|_, v| v.as_str() != Some(needle));
            let mut removed = before - map.len();
            for v in map.values_mut() {
                removed += remove_value(v, needle);
            }
            removed
        }
        Value::Array(items) => items.iter_mut().map(|v| remove_value(v, needle)).sum(),
        _ => 0,
    }
}

pub fn refuses_unknown(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = match sandbox(ctx, adapter) {
        Ok(sb) => sb,
        Err(outcome) => return outcome,
    };
    let inputs = accepted(ctx, adapter, &sb);
    let Some(base) = base(&inputs) else {
        return none_accepted(ctx, adapter);
    };
    let normalize =
        |payload: &Value, args: &[String]| adapter.behaviour().normalize_hook(payload, args);
    let mut problems = Problems::new(ctx.source_file(adapter.id(), &["normalize.rs"]));
    let mut cases: Vec<(String, Value, Vec<String>)> = Vec::new();

    let mut unknown = base.payload.clone();
    let event_name = base.args.first().cloned().unwrap_or_default();
    rename_event(&mut unknown, &event_name, UNKNOWN_EVENT);
    cases.push((
        format!("{} with its event renamed to {UNKNOWN_EVENT}", base.label),
        unknown,
        vec![UNKNOWN_EVENT.to_owned()],
    ));

    let mut sessionless = base.payload.clone();
    if remove_value(&mut sessionless, &base.event.session_id) > 0 {
        cases.push((
            format!("{} without its session id", base.label),
            sessionless,
            base.args.clone(),
        ));
    }
    let garbage = [
        ("an empty object", json!({})),
        ("null", Value::Null),
        ("the string \"garbage\"", json!("garbage")),
        ("a number", json!(42)),
        ("a boolean", json!(true)),
        (
            "an array holding the payload",
            json!([base.payload.clone()]),
        ),
        (
            "an object with only an event name",
            json!({"hook_event_name": event_name.clone(), "hookEventName": event_name.clone()}),
        ),
    ];
    for (what, value) in garbage {
        cases.push((what.to_owned(), value, base.args.clone()));
    }
    for (what, payload, args) in &cases {
        if let Ok(event) = normalize(payload, args) {
            problems.push(format!(
                "accepted {what} as a {} event of session {:?}: an unrecognised payload must be refused, never given an invented session",
                event.kind.as_str(),
                event.session_id
            ));
        }
    }
    problems.into_outcome()
}

/// Replaces every value of a canary field, at any depth.
fn plant(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if CANARY_FIELDS.contains(&key.as_str()) {
                    *v = Value::String(canary(key));
                } else {
                    plant(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plant),
        _ => {}
    }
}

fn with_added_fields(value: &Value) -> Option<Value> {
    let mut map: Map<String, Value> = value.as_object()?.clone();
    for field in ADDED_FIELDS {
        map.entry(field.to_owned())
            .or_insert_with(|| Value::String(canary(field)));
    }
    Some(Value::Object(map))
}

pub fn whitelist(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = match sandbox(ctx, adapter) {
        Ok(sb) => sb,
        Err(outcome) => return outcome,
    };
    let inputs = accepted(ctx, adapter, &sb);
    if inputs.is_empty() {
        return none_accepted(ctx, adapter);
    }
    let mut problems = Problems::new(ctx.source_file(adapter.id(), &["normalize.rs"]));
    for input in &inputs {
        let mut planted = input.payload.clone();
        plant(&mut planted);
        let variants = std::iter::once(planted.clone()).chain(with_added_fields(&planted));
        for variant in variants {
            let Ok(event) = adapter.behaviour().normalize_hook(&variant, &input.args) else {
                continue;
            };
            let seen = format!(
                "{} {event:?}",
                serde_json::to_string(&event).unwrap_or_default()
            );
            if let Some(at) = seen.find(CANARY_PREFIX) {
                let leaked: String = seen[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect();
                problems.push(format!(
                    "{}: the normalised event carries {leaked}: normalisation must whitelist the fields core needs, never copy the prompt, transcript path, file content or tool output",
                    input.label
                ));
                break;
            }
        }
    }
    problems.into_outcome()
}

pub fn stable_session(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let sb = match sandbox(ctx, adapter) {
        Ok(sb) => sb,
        Err(outcome) => return outcome,
    };
    let inputs = accepted(ctx, adapter, &sb);
    let Some(base) = base(&inputs) else {
        return none_accepted(ctx, adapter);
    };
    let mut problems = Problems::new(ctx.source_file(adapter.id(), &["normalize.rs"]));
    let normalize =
        |payload: &Value, args: &[String]| adapter.behaviour().normalize_hook(payload, args);
    let event_name = base.args.first().cloned().unwrap_or_default();
    // Another event of the same session: the base payload under each other event name
    // the corpus or install knows, as the client would send it later in the session.
    let mut others: Vec<String> = inputs
        .iter()
        .filter_map(|a| a.args.first().cloned())
        .filter(|e| *e != event_name)
        .collect();
    others.sort();
    others.dedup();
    let mut compared = 0;
    for other in &others {
        let mut payload = base.payload.clone();
        rename_event(&mut payload, &event_name, other);
        let args = vec![other.clone()];
        let Ok(event) = normalize(&payload, &args) else {
            continue;
        };
        compared += 1;
        if event.session_id != base.event.session_id {
            problems.push(format!(
                "{} read as session {:?} on {event_name} but {:?} on {other}: every event of one session must give the same sessionId",
                base.label, base.event.session_id, event.session_id
            ));
        }
    }
    let again = normalize(&base.payload, &base.args);
    match again {
        Ok(event) if event.session_id == base.event.session_id => compared += 1,
        Ok(event) => problems.push(format!(
            "{} gave session {:?} the first time and {:?} the second: the same payload must give the same sessionId",
            base.label, base.event.session_id, event.session_id
        )),
        Err(e) => problems.push(format!(
            "{} was accepted once and refused the second time: {e}",
            base.label
        )),
    }
    // A different session must not collapse into the same id.
    let renamed = base.payload.to_string().replace(
        &serde_json::to_string(&base.event.session_id).unwrap_or_default(),
        &serde_json::to_string(&format!("{}-other", base.event.session_id)).unwrap_or_default(),
    );
    if let Ok(other) = serde_json::from_str::<Value>(&renamed)
        && other != base.payload
        && let Ok(event) = normalize(&other, &base.args)
        && event.session_id == base.event.session_id
    {
        problems.push(format!(
            "{} with another session id still read as session {:?}: distinct sessions must keep distinct ids",
            base.label, base.event.session_id
        ));
    }
    if compared == 0 {
        return Outcome::not_applicable("only one payload of the client could be normalised");
    }
    problems.into_outcome()
}
