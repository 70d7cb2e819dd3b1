//! Probe payloads: what a hook command is fed when a check or `acc-certify wire` runs it.
//!
//! The client's own payloads come first: `fixtures/payloads/<id>/<run>/<Event>.jsonl` holds
//! what the real client wrote to a hook's stdin for `<Event>` (sandbox paths written as
//! `/sandbox/ws` and `/sandbox/home`). For an event with no captured payload, a captured
//! payload of another event is adapted (its event-name field renamed); for a client with no
//! captured payload at all, the two payload families hook clients use are tried until the
//! adapter accepts one. Every probe of one adapter is rewritten to one session id, so a run
//! of every event reads as one session.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use acc_sdk::define::Adapter;
use acc_sdk::event::{NormalizeError, NormalizedEvent};
use serde_json::{Value, json};

/// The workspace placeholder in committed payloads.
pub const PAYLOAD_WORKSPACE: &str = "/sandbox/ws";
/// The home placeholder in committed payloads.
pub const PAYLOAD_HOME: &str = "/sandbox/home";

/// One payload a real client wrote, as committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedPayload {
    /// `fixtures/payloads/<id>/<run>/<Event>.jsonl:<line>`.
    pub source: String,
    pub run: String,
    /// The client's event name (the file stem).
    pub event: String,
    pub text: String,
}

impl CapturedPayload {
    /// The hook command's arguments after the adapter id, as acc's installer writes them.
    pub fn args(&self) -> Vec<String> {
        vec![self.event.clone()]
    }
}

/// Every captured payload of one adapter's client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PayloadCorpus {
    payloads: Vec<CapturedPayload>,
}

impl PayloadCorpus {
    /// Reads `fixtures/payloads/<adapter_id>/*/*.jsonl` under `root`, sorted by run, event
    /// and line. A missing directory is an empty corpus.
    pub fn load(root: &Path, adapter_id: &str) -> PayloadCorpus {
        let dir = root.join("fixtures").join("payloads").join(adapter_id);
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
            .min_depth(2)
            .max_depth(2)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        let mut payloads = Vec::new();
        for file in files {
            let (Some(run), Some(event)) = (
                file.parent()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned()),
                file.file_stem().map(|n| n.to_string_lossy().into_owned()),
            ) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for (n, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                payloads.push(CapturedPayload {
                    source: format!(
                        "fixtures/payloads/{adapter_id}/{run}/{event}.jsonl:{}",
                        n + 1
                    ),
                    run: run.clone(),
                    event: event.clone(),
                    text: line.to_owned(),
                });
            }
        }
        PayloadCorpus { payloads }
    }

    pub fn is_empty(&self) -> bool {
        self.payloads.is_empty()
    }

    pub fn all(&self) -> &[CapturedPayload] {
        &self.payloads
    }

    /// The run with the most distinct events (then the first by name): its payloads share
    /// one real session, so they make the most faithful probes.
    fn primary_run(&self) -> Option<&str> {
        let mut events: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for p in &self.payloads {
            events.entry(&p.run).or_default().insert(&p.event);
        }
        let mut best: Option<(&str, usize)> = None;
        for (run, set) in events {
            if best.is_none_or(|(_, n)| set.len() > n) {
                best = Some((run, set.len()));
            }
        }
        best.map(|(run, _)| run)
    }

    /// The first captured payload of `event`, preferring the primary run.
    pub fn captured(&self, event: &str) -> Option<&CapturedPayload> {
        let primary = self.primary_run();
        self.payloads
            .iter()
            .find(|p| Some(p.run.as_str()) == primary && p.event == event)
            .or_else(|| self.payloads.iter().find(|p| p.event == event))
    }

    /// A payload to adapt to another event: the primary run's SessionStart, else its first.
    fn template(&self) -> Option<&CapturedPayload> {
        self.captured("SessionStart").or_else(|| {
            let primary = self.primary_run()?;
            self.payloads.iter().find(|p| p.run == primary)
        })
    }
}

/// Where a probe payload came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeSource {
    /// A payload the real client wrote for this event.
    Captured(String),
    /// A captured payload of another event, its event-name field renamed.
    Adapted { from: String },
    /// No captured payload of this client exists; built from a known payload family.
    Synthesized,
}

impl ProbeSource {
    pub fn describe(&self) -> String {
        match self {
            ProbeSource::Captured(source) => source.clone(),
            ProbeSource::Adapted { from } => format!("adapted from {from}"),
            ProbeSource::Synthesized => "synthesized (no captured payload of this client)".into(),
        }
    }
}

/// A payload for one hook command, pointed at a sandbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub payload: Value,
    /// The hook command's arguments after the adapter id.
    pub args: Vec<String>,
    pub source: ProbeSource,
}

impl Probe {
    pub fn normalize(&self, adapter: &Adapter) -> Result<NormalizedEvent, NormalizeError> {
        adapter
            .behaviour()
            .normalize_hook(&self.payload, &self.args)
    }

    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.payload).unwrap_or_default()
    }
}

/// Where a probe's paths point and which session it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeTarget<'a> {
    pub workspace: &'a Path,
    pub home: &'a Path,
    pub session_id: &'a str,
}

/// Top-level keys that name the event in some client's payload.
pub fn is_event_key(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    lower == "event" || lower.contains("event_name") || lower.contains("eventname")
}

/// `PreToolUse` -> `pre_tool_use`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Renames the event in `payload` from `from` to `to`, keeping the spelling the client
/// used (as is, or snake_case).
pub fn rename_event(payload: &mut Value, from: &str, to: &str) {
    let Some(obj) = payload.as_object_mut() else {
        return;
    };
    for (key, value) in obj.iter_mut() {
        if !is_event_key(key) {
            continue;
        }
        if let Some(text) = value.as_str() {
            let renamed = if text == snake_case(from) && text != from {
                snake_case(to)
            } else {
                to.to_owned()
            };
            *value = Value::String(renamed);
        }
    }
}

/// The payload families hook clients use, for a client with no captured payload.
fn synthesized_candidates(event: &str, target: &ProbeTarget<'_>) -> Vec<Value> {
    let ws = target.workspace.to_string_lossy();
    let session = target.session_id;
    vec![
        json!({"hook_event_name": event, "session_id": session, "cwd": ws, "source": "startup"}),
        json!({"hookEventName": event, "sessionId": session, "cwd": ws}),
        json!({"conversationId": session, "workspacePaths": [ws], "executionNum": 0}),
    ]
}

/// Points a captured payload's text at the sandbox.
fn localise(text: &str, target: &ProbeTarget<'_>) -> Option<Value> {
    let text = text
        .replace(PAYLOAD_WORKSPACE, &target.workspace.to_string_lossy())
        .replace(PAYLOAD_HOME, &target.home.to_string_lossy());
    serde_json::from_str(&text).ok()
}

/// Replaces the session id the adapter reads with `target.session_id`, wherever the
/// payload repeats it, so every probe of a run belongs to one session.
fn pin_session(adapter: &Adapter, probe: &mut Probe, session_id: &str) {
    let Ok(event) = probe.normalize(adapter) else {
        return;
    };
    if event.session_id == session_id {
        return;
    }
    let text = probe.payload.to_string();
    let old = serde_json::to_string(&event.session_id).unwrap_or_default();
    let new = serde_json::to_string(session_id).unwrap_or_default();
    if let Ok(value) = serde_json::from_str(&text.replace(&old, &new)) {
        let candidate = Probe {
            payload: value,
            ..probe.clone()
        };
        if candidate
            .normalize(adapter)
            .is_ok_and(|e| e.session_id == session_id)
        {
            *probe = candidate;
        }
    }
}

/// The probe for `event` (the client's event name, as the hook command carries it).
pub fn probe_for(
    corpus: &PayloadCorpus,
    adapter: &Adapter,
    event: &str,
    target: &ProbeTarget<'_>,
) -> Probe {
    let args = vec![event.to_owned()];
    let mut probe = if let Some(found) = corpus
        .captured(event)
        .and_then(|c| Some((c, localise(&c.text, target)?)))
    {
        Probe {
            payload: found.1,
            args,
            source: ProbeSource::Captured(found.0.source.clone()),
        }
    } else if let Some((template, mut payload)) = corpus
        .template()
        .and_then(|t| Some((t, localise(&t.text, target)?)))
    {
        rename_event(&mut payload, &template.event, event);
        Probe {
            payload,
            args,
            source: ProbeSource::Adapted {
                from: template.source.clone(),
            },
        }
    } else {
        let candidates = synthesized_candidates(event, target);
        let accepted = candidates
            .iter()
            .find(|c| adapter.behaviour().normalize_hook(c, &args).is_ok())
            .unwrap_or(&candidates[0])
            .clone();
        Probe {
            payload: accepted,
            args,
            source: ProbeSource::Synthesized,
        }
    };
    pin_session(adapter, &mut probe, target.session_id);
    probe
}

/// Every payload the adapter accepts as a hook input: the corpus, else synthesized probes
/// for `events`. Each with its label, arguments and normalised event.
pub fn accepted_payloads(
    corpus: &PayloadCorpus,
    adapter: &Adapter,
    events: &[String],
    target: &ProbeTarget<'_>,
) -> Vec<(String, Value, Vec<String>, NormalizedEvent)> {
    let mut out = Vec::new();
    for captured in corpus.all() {
        let Some(value) = localise(&captured.text, target) else {
            continue;
        };
        let args = captured.args();
        if let Ok(event) = adapter.behaviour().normalize_hook(&value, &args) {
            out.push((captured.source.clone(), value, args, event));
        }
    }
    if out.is_empty() {
        for event in events {
            let probe = probe_for(&PayloadCorpus::default(), adapter, event, target);
            if let Ok(normalized) = probe.normalize(adapter) {
                out.push((
                    probe.source.describe(),
                    probe.payload,
                    probe.args,
                    normalized,
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_keep_the_clients_spelling() {
        let mut claude = json!({"hook_event_name": "SessionStart", "session_id": "s"});
        rename_event(&mut claude, "SessionStart", "PreToolUse");
        assert_eq!(claude["hook_event_name"], "PreToolUse");
        let mut grok = json!({"hookEventName": "session_start", "sessionId": "s"});
        rename_event(&mut grok, "SessionStart", "PreToolUse");
        assert_eq!(grok["hookEventName"], "pre_tool_use");
        assert_eq!(grok["sessionId"], "s");
    }

    #[test]
    fn the_corpus_reads_every_line_of_every_event() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("fixtures/payloads/x/run1");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("SessionStart.jsonl"), "{\"a\":1}\n\n{\"a\":2}\n").unwrap();
        std::fs::write(run.join("Stop.jsonl"), "{\"a\":3}\n").unwrap();
        std::fs::write(run.join("README.md"), "not a payload").unwrap();
        let corpus = PayloadCorpus::load(dir.path(), "x");
        let sources: Vec<&str> = corpus.all().iter().map(|p| p.source.as_str()).collect();
        assert_eq!(
            sources,
            [
                "fixtures/payloads/x/run1/SessionStart.jsonl:1",
                "fixtures/payloads/x/run1/SessionStart.jsonl:3",
                "fixtures/payloads/x/run1/Stop.jsonl:1",
            ]
        );
        assert_eq!(corpus.captured("Stop").unwrap().text, "{\"a\":3}");
        assert!(PayloadCorpus::load(dir.path(), "none").is_empty());
    }
}
