//! What a normaliser must refuse, as tables that report which case failed.

use serde_json::{Value, json};

use crate::adapter::AdapterBehaviour;
use crate::event::NormalizeError;
use crate::testing::payloads::{with, without};

/// One input a normaliser must refuse, and the refusal it must give.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// Names the case when it fails.
    pub what: String,
    pub payload: Value,
    /// The hook command's arguments after the adapter id.
    pub args: Vec<String>,
    pub want: NormalizeError,
}

impl Refusal {
    pub fn new(what: impl Into<String>, payload: Value, want: NormalizeError) -> Self {
        Refusal {
            what: what.into(),
            payload,
            args: Vec::new(),
            want,
        }
    }

    /// The same case with the hook command's event argument `event`.
    pub fn with_event_arg(mut self, event: &str) -> Self {
        self.args = vec![event.to_owned()];
        self
    }
}

/// Where a client's envelope names the event, the session and the working directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvelopeKeys {
    pub event: &'static str,
    pub session: &'static str,
    pub cwd: &'static str,
}

/// The envelope the Claude-shaped clients send.
pub const SNAKE_CASE_ENVELOPE: EnvelopeKeys = EnvelopeKeys {
    event: "hook_event_name",
    session: "session_id",
    cwd: "cwd",
};

/// The refusals every envelope that names its event owes: each name in `unknown` is an
/// unknown event, and a payload of the `known` event without a usable event name, session
/// id or working directory is refused for exactly that. `base(event)` is a payload of
/// `event` the normaliser accepts.
pub fn envelope_refusals(
    base: impl Fn(&str) -> Value,
    keys: EnvelopeKeys,
    known: &str,
    unknown: &[&str],
) -> Vec<Refusal> {
    let mut cases: Vec<Refusal> = unknown
        .iter()
        .map(|name| {
            Refusal::new(
                format!("unknown event {name:?}"),
                base(name),
                NormalizeError::UnknownEvent((*name).to_owned()),
            )
        })
        .collect();
    cases.push(Refusal::new(
        "no event",
        without(base(known), keys.event),
        NormalizeError::UnknownEvent(String::new()),
    ));
    cases.push(Refusal::new(
        "missing session id",
        without(base(known), keys.session),
        NormalizeError::MissingSessionId,
    ));
    cases.push(Refusal::new(
        "missing cwd",
        without(base(known), keys.cwd),
        NormalizeError::MissingCwd,
    ));
    for blank in [json!(""), json!(" "), json!("  "), json!("\t"), json!(7)] {
        cases.push(Refusal::new(
            format!("session id {blank}"),
            with(base(known), keys.session, blank.clone()),
            NormalizeError::MissingSessionId,
        ));
        cases.push(Refusal::new(
            format!("cwd {blank}"),
            with(base(known), keys.cwd, blank),
            NormalizeError::MissingCwd,
        ));
    }
    cases
}

/// Asserts that `behaviour` refuses every case exactly as it says, naming the case that
/// was accepted or refused otherwise.
#[track_caller]
pub fn assert_refused(behaviour: &dyn AdapterBehaviour, cases: impl IntoIterator<Item = Refusal>) {
    for case in cases {
        match behaviour.normalize_hook(&case.payload, &case.args) {
            Ok(event) => panic!("{}: accepted as {event:?}", case.what),
            Err(got) => assert_eq!(got, case.want, "{}", case.what),
        }
    }
}

/// Asserts that anything but a JSON object (`sample`, a payload the client sends, among
/// others: inside an array, and as a string) is refused as a foreign shape, with `args` as
/// the hook command's arguments.
#[track_caller]
pub fn assert_non_objects_are_foreign(
    behaviour: &dyn AdapterBehaviour,
    args: &[String],
    sample: &Value,
) {
    let shapes = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(42),
        json!(1.5),
        json!(""),
        json!("Stop"),
        json!(sample.to_string()),
        json!([]),
        json!([1, 2]),
        json!([sample]),
    ];
    for payload in shapes {
        assert!(
            matches!(
                behaviour.normalize_hook(&payload, args),
                Err(NormalizeError::ForeignShape(_))
            ),
            "{payload}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::define::testing::TestBehaviour;
    use crate::event::EventKind;

    const KEYS: EnvelopeKeys = EnvelopeKeys {
        event: "event",
        session: "session_id",
        cwd: "cwd",
    };

    fn base(event: &str) -> Value {
        json!({"event": event, "session_id": "s-1", "cwd": "/w"})
    }

    #[test]
    fn each_envelope_case_breaks_one_field_of_an_accepted_payload() {
        let known = EventKind::TurnEnd.as_str();
        assert!(
            TestBehaviour::new()
                .normalize_hook(&base(known), &[])
                .is_ok()
        );
        let cases = envelope_refusals(base, KEYS, known, &["Nope"]);
        let find = |what: &str| {
            cases
                .iter()
                .find(|c| c.what == what)
                .unwrap_or_else(|| panic!("no case {what}"))
        };
        assert_eq!(find("unknown event \"Nope\"").payload, base("Nope"));
        assert_eq!(
            find("no event").payload,
            json!({"session_id": "s-1", "cwd": "/w"})
        );
        assert_eq!(
            find("missing cwd").want,
            NormalizeError::MissingCwd,
            "{cases:?}"
        );
        let blank = find("session id \"\\t\"");
        assert_eq!(blank.payload["session_id"], "\t");
        assert_eq!(blank.want, NormalizeError::MissingSessionId);
        assert_eq!(find("cwd 7").payload["cwd"], 7);
        assert!(cases.iter().all(|c| c.args.is_empty()));
    }

    #[test]
    #[should_panic(expected = "session id \" \": accepted")]
    fn a_case_the_normaliser_accepts_fails_naming_the_case() {
        // The test behaviour takes any non-empty string as a session id.
        let known = EventKind::TurnEnd.as_str();
        assert_refused(
            &TestBehaviour::new(),
            envelope_refusals(base, KEYS, known, &[]),
        );
    }

    #[test]
    #[should_panic(expected = "wrong refusal")]
    fn a_case_refused_otherwise_fails_naming_the_case() {
        let case = Refusal::new(
            "wrong refusal",
            json!({"session_id": "s-1", "cwd": "/w"}),
            NormalizeError::MissingCwd,
        )
        .with_event_arg("ignored");
        assert_eq!(case.args, ["ignored"]);
        assert_refused(&TestBehaviour::new(), [case]);
    }

    #[test]
    fn every_non_object_is_foreign_to_a_normaliser_that_wants_objects() {
        assert_non_objects_are_foreign(&TestBehaviour::new(), &[], &base("x"));
    }
}
