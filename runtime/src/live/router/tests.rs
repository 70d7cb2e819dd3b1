//! The offer path in process, against a fake endpoint adapter.

use std::sync::{Arc, Mutex};

use acc_sdk::adapter::{
    AdapterBehaviour, AdapterError, LivePush, NativeSession, NativeSessionFacts, OfferAcceptance,
};
use acc_sdk::capabilities::Capability;
use acc_sdk::context::{ContextInput, ContextResult};
use acc_sdk::define::testing::{TestBehaviour, certification_json, evidence_row, manifest_json};
use acc_sdk::define::{Adapter, define_adapter};
use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use acc_sdk::outcome::HookOutcome;
use serde_json::{Value, json};

use super::*;
use crate::core::messages::SendMessage;
use crate::core::model::{MessageKind, Obligation};
use crate::core::native::PublishBinding;
use crate::core::testkit::{Kit, kit};

const PROTOCOL: &str = "example-inbox-v1";

/// A fake endpoint: remembers every offer and answers with `answer`.
#[derive(Default)]
struct Endpoint {
    offers: Mutex<Vec<LiveOffer>>,
    answer: Mutex<OfferAcceptance>,
}

struct Fake {
    inner: TestBehaviour,
    endpoint: Arc<Endpoint>,
}

impl LivePush for Fake {
    fn offer_message(&self, offer: &LiveOffer) -> OfferAcceptance {
        self.endpoint.offers.lock().unwrap().push(offer.clone());
        self.endpoint.answer.lock().unwrap().clone()
    }
}

impl NativeSession for Fake {
    fn probe_native_delivery(&self, _ctx: &InstallContext) -> Option<Value> {
        None
    }
    fn bind_native_session(&self, _s: &NativeSessionFacts) -> Option<Value> {
        None
    }
}

impl AdapterBehaviour for Fake {
    fn detect(&self, ctx: &InstallContext) -> Detection {
        self.inner.detect(ctx)
    }
    fn plan_install(&self, ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
        self.inner.plan_install(ctx)
    }
    fn install(&self, ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
        self.inner.install(ctx)
    }
    fn uninstall(
        &self,
        ctx: &InstallContext,
        keep: &[std::path::PathBuf],
    ) -> Result<InstallReport, AdapterError> {
        self.inner.uninstall(ctx, keep)
    }
    fn doctor(&self, ctx: &InstallContext) -> DoctorReport {
        self.inner.doctor(ctx)
    }
    fn normalize_hook(&self, p: &Value, a: &[String]) -> Result<NormalizedEvent, NormalizeError> {
        self.inner.normalize_hook(p, a)
    }
    fn render_context_result(&self, input: &ContextInput, budget: usize) -> ContextResult {
        ContextResult {
            text: format!("<peer>{}</peer>", input.messages[0].body)
                .chars()
                .take(budget)
                .collect(),
            offered_message_ids: input
                .messages
                .iter()
                .map(|m| m.message_id.clone())
                .collect(),
            included_attention_ids: Vec::new(),
        }
    }
    fn deny_outcome(&self, e: &NormalizedEvent, r: &str) -> HookOutcome {
        self.inner.deny_outcome(e, r)
    }
    fn inject_outcome(&self, e: &NormalizedEvent, t: &str) -> HookOutcome {
        self.inner.inject_outcome(e, t)
    }
    fn live_push(&self) -> Option<&dyn LivePush> {
        Some(self)
    }
    fn native_session(&self) -> Option<&dyn NativeSession> {
        Some(self)
    }
}

fn adapter(endpoint: Arc<Endpoint>, offer_kind: &str) -> Adapter {
    let mut m = manifest_json("example", "example", &[Capability::LivePush]);
    m["nativeDelivery"] = json!({
        "minimum": "1.2.0",
        "anchors": [{"version": "1.2.0", "protocolContract": PROTOCOL}],
        "knownBad": [{"version": "1.3.0", "reasonCode": "known_bad_version"}],
        "activationKinds": ["native-service"],
        "offerKind": offer_kind,
    });
    let cert = certification_json(vec![evidence_row(
        "example-cli",
        "1.2.0",
        "linux-x64",
        Capability::LivePush,
        true,
    )]);
    define_adapter(
        &m,
        &cert,
        Box::new(Fake {
            inner: TestBehaviour::new(),
            endpoint,
        }),
    )
    .unwrap()
}

struct Setup {
    k: Kit,
    dir: tempfile::TempDir,
    endpoint: Arc<Endpoint>,
    adapters: Vec<Adapter>,
    alice: Owner,
    bob: Owner,
}

fn setup(offer_kind: &str, policy: Option<&str>, client_version: &str) -> Setup {
    let mut k = kit();
    let alice = k.attach("alice");
    let bob = k.attach("bob");
    let now = k.core.now_ms();
    k.core
        .publish_native_binding(
            &bob,
            &PublishBinding {
                adapter_id: "example",
                client_version: Some(client_version),
                protocol_contract: PROTOCOL,
                modes: &["livePush".to_owned(), "idleWake".to_owned()],
                endpoint_ref: "fake-endpoint-7",
                lease_until_ms: now + 60_000,
            },
        )
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let delivery = policy
        .map(|p| format!(r#","delivery":"{p}""#))
        .unwrap_or_default();
    std::fs::write(
        crate::installer::record::record_path(dir.path()),
        format!(
            r#"{{"schemaVersion":1,"installs":[{{"adapterId":"example","accVersion":"0",
            "artifacts":[],"createdDirectories":[],"originals":[]{delivery}}}]}}"#
        ),
    )
    .unwrap();
    let endpoint = Arc::new(Endpoint::default());
    *endpoint.answer.lock().unwrap() = OfferAcceptance {
        accepted: true,
        pending_approval: false,
        reason_code: None,
    };
    let adapters = vec![adapter(endpoint.clone(), offer_kind)];
    Setup {
        k,
        dir,
        endpoint,
        adapters,
        alice,
        bob,
    }
}

impl Setup {
    fn send(&mut self, kind: MessageKind, obligation: Option<Obligation>) -> Vec<LiveResult> {
        let out = self
            .k
            .core
            .send(
                &self.alice,
                SendMessage {
                    to: vec!["bob".into()],
                    kind,
                    obligation,
                    subject: "subject".into(),
                    body: "the peer body".into(),
                    client_message_id: None,
                },
            )
            .unwrap();
        let router = Router {
            adapters: &self.adapters,
            acc_data_dir: self.dir.path(),
            candidate: false,
        };
        router.offer_after_commit(&mut self.k.core, &self.alice, &out.message)
    }

    fn receipt_state(&mut self) -> String {
        self.k
            .core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT state FROM receipts ORDER BY message_seq DESC LIMIT 1",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap()
    }

    fn offers(&self) -> Vec<LiveOffer> {
        self.endpoint.offers.lock().unwrap().clone()
    }
}

#[test]
fn a_wake_carries_only_the_notice_and_leaves_the_receipt_queued() {
    let mut s = setup("wake", Some("all"), "1.2.0");
    let r = s.send(MessageKind::Note, None);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].outcome, LiveOutcome::Woken);
    assert_eq!(r[0].session_id, s.bob.session.to_string());
    assert_eq!(r[0].transport, PROTOCOL);
    let offers = s.offers();
    assert_eq!(offers.len(), 1);
    assert_eq!(offers[0].text, WAKE_NOTICE);
    assert!(!offers[0].text.contains("the peer body"));
    assert_eq!(offers[0].endpoint_ref.as_deref(), Some("fake-endpoint-7"));
    assert_eq!(s.receipt_state(), "queued");
    assert_eq!(
        s.k.count("SELECT count(*) FROM events WHERE type LIKE 'message.offer%'"),
        0,
        "a wake records no offer"
    );
    assert_eq!(human_summary(&r).unwrap(), "woke bob's idle session");
}

#[test]
fn a_message_kind_offer_carries_the_rendered_body_and_marks_the_receipt_offered() {
    let mut s = setup("message", Some("all"), "1.2.0");
    let r = s.send(MessageKind::Note, None);
    assert_eq!(r[0].outcome, LiveOutcome::Offered);
    assert_eq!(s.offers()[0].text, "<peer>the peer body</peer>");
    assert_eq!(s.receipt_state(), "offered");
    assert_eq!(
        s.k.count(&format!(
            "SELECT count(*) FROM receipts WHERE offer_transport = '{PROTOCOL}'"
        )),
        1
    );
}

#[test]
fn consent_decides_before_anything_is_sent() {
    for (policy, kind, obligation, reason) in [
        (None, MessageKind::Request, None, Some("delivery_off")),
        (
            Some("off"),
            MessageKind::Request,
            None,
            Some("delivery_off"),
        ),
        (
            Some("sometimes"),
            MessageKind::Request,
            None,
            Some("delivery_off"),
        ),
        (
            Some("actionable"),
            MessageKind::Note,
            None,
            Some("not_actionable"),
        ),
        (Some("actionable"), MessageKind::Question, None, None),
        (
            Some("actionable"),
            MessageKind::Decision,
            None,
            Some("not_actionable"),
        ),
    ] {
        let mut s = setup("wake", policy, "1.2.0");
        let r = s.send(kind, obligation);
        match reason {
            Some(code) => {
                assert_eq!(r[0].outcome, LiveOutcome::NotOffered, "{policy:?} {kind}");
                assert_eq!(r[0].reason_code.as_deref(), Some(code));
                assert!(s.offers().is_empty(), "{policy:?}: nothing sent");
            }
            None => assert_eq!(r[0].outcome, LiveOutcome::Woken, "{policy:?} {kind}"),
        }
        assert_eq!(s.receipt_state(), "queued");
    }
}

#[test]
fn the_version_rule_refuses_below_the_first_capture_and_known_bad_versions() {
    for (version, code) in [
        ("1.1.9", "below_minimum_version"),
        ("1.3.0", "known_bad_version"),
        ("1.3.0-beta.2", "known_bad_version"),
    ] {
        let mut s = setup("wake", Some("all"), version);
        let r = s.send(MessageKind::Note, None);
        assert_eq!(r[0].outcome, LiveOutcome::NotOffered);
        assert_eq!(r[0].reason_code.as_deref(), Some(code), "{version}");
        assert!(s.offers().is_empty());
    }
    let mut s = setup("wake", Some("all"), "9.0.0");
    assert_eq!(
        s.send(MessageKind::Note, None)[0].outcome,
        LiveOutcome::Woken
    );
}

#[test]
fn a_held_wake_is_reported_pending_approval() {
    let mut s = setup("wake", Some("all"), "1.2.0");
    s.endpoint.answer.lock().unwrap().pending_approval = true;
    let r = s.send(MessageKind::Note, None);
    assert_eq!(r[0].outcome, LiveOutcome::PendingApproval);
    assert!(r[0].pending_approval);
    assert_eq!(s.receipt_state(), "queued");
    assert!(human_summary(&r).unwrap().contains("approval"));
}

#[test]
fn a_failed_offer_is_recorded_the_receipt_stays_queued_and_a_dead_endpoint_is_retired() {
    let mut s = setup("wake", Some("all"), "1.2.0");
    *s.endpoint.answer.lock().unwrap() = OfferAcceptance {
        accepted: false,
        pending_approval: false,
        reason_code: Some("native_session_unavailable".into()),
    };
    let r = s.send(MessageKind::Note, None);
    assert_eq!(r[0].outcome, LiveOutcome::Failed);
    assert_eq!(
        r[0].reason_code.as_deref(),
        Some("native_session_unavailable")
    );
    assert_eq!(s.receipt_state(), "queued");
    assert_eq!(
        s.k.count(
            "SELECT count(*) FROM events WHERE type = 'message.offer_failed'
             AND json_extract(payload, '$.safeErrorCode') = 'native_session_unavailable'"
        ),
        1
    );
    let bob = s.bob.session.clone();
    assert!(s.k.core.native_binding(&bob).unwrap().is_none());
    // The next message finds no binding: nothing is offered, nothing is said.
    assert!(s.send(MessageKind::Note, None).is_empty());
}

#[test]
fn a_vendor_string_in_a_refusal_never_reaches_the_sender() {
    let mut s = setup("wake", Some("all"), "1.2.0");
    *s.endpoint.answer.lock().unwrap() = OfferAcceptance {
        accepted: false,
        pending_approval: false,
        reason_code: Some("ECONNREFUSED /tmp/cc-socks/1.sock".into()),
    };
    let r = s.send(MessageKind::Note, None);
    assert_eq!(r[0].reason_code.as_deref(), Some("handshake_failed"));
}
