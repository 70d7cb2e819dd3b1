use serde_json::json;

use super::testing::{TestBehaviour, certification_json, evidence_row, manifest_json};
use super::*;
use crate::native::ReasonCode;

const C: &str = "example-cli";

fn rows_for(caps: &[Capability]) -> Value {
    certification_json(
        caps.iter()
            .map(|c| evidence_row(C, "1.0.0", "linux-x64", *c, true))
            .collect(),
    )
}

fn define(manifest: &Value, cert: &Value, b: TestBehaviour) -> Result<Adapter, DefineError> {
    define_adapter(manifest, cert, b.boxed())
}

fn refusal(manifest: &Value, cert: &Value, b: TestBehaviour) -> (ProblemCode, String) {
    let e = define(manifest, cert, b).unwrap_err();
    (e.code(), e.message().to_owned())
}

#[test]
fn a_backed_and_evidenced_adapter_is_defined() {
    let caps = [
        Capability::SessionStart,
        Capability::BeforeWrite,
        Capability::NextTurn,
    ];
    let a = define(
        &manifest_json("example", "example", &caps),
        &rows_for(&caps),
        TestBehaviour::new().backing_all(),
    )
    .unwrap();
    assert_eq!(a.id(), "example");
    assert_eq!(a.manifest().client.primary(), C);
    assert_eq!(a.certification().evidence.len(), 3);
    let facts = ClientFacts {
        client_version: Some("1.2.0".into()),
        platform: "darwin-arm64".into(),
        client_name: None,
    };
    assert_eq!(
        a.effective_capabilities(&facts)
            .enabled()
            .collect::<Vec<_>>(),
        caps.to_vec()
    );
    assert!(
        a.capability_evidence(&facts, Capability::BeforeWrite)
            .granted
    );
    assert!(a.behaviour().guard_write().is_some());
    assert_eq!(
        a.evaluate_version_contract(Some("1.0.0"), None).reason_code,
        Some(ReasonCode::NativeDeliveryUnsupported)
    );
}

#[test]
fn every_true_capability_needs_its_backing_method() {
    for (cap, method) in [
        (Capability::BeforeRead, "guard_read"),
        (Capability::BeforeWrite, "guard_write"),
        (Capability::BeforeShell, "guard_shell"),
        (Capability::LivePush, "offer_message"),
        (Capability::ReplyRoute, "route_reply"),
    ] {
        let m = manifest_json("example", "example", &[cap]);
        assert_eq!(
            refusal(&m, &rows_for(&[cap]), TestBehaviour::new()),
            (
                ProblemCode::CapabilityRequiresMethod,
                format!("capability {cap} requires {method}()")
            ),
        );
        assert!(
            define(&m, &rows_for(&[cap]), TestBehaviour::new().backing(cap)).is_ok(),
            "{cap}"
        );
    }
    // Lifecycle, context and next-turn are backed by required methods.
    for cap in [
        Capability::SessionEnd,
        Capability::StartupInjection,
        Capability::NextTurn,
        Capability::ChildSessions,
    ] {
        assert!(
            define(
                &manifest_json("example", "example", &[cap]),
                &rows_for(&[cap]),
                TestBehaviour::new()
            )
            .is_ok(),
            "{cap}"
        );
    }
}

#[test]
fn every_true_capability_needs_a_passing_row_of_the_primary() {
    let cap = Capability::BeforeShell;
    let m = manifest_json("example", "example", &[cap]);
    let b = || TestBehaviour::new().backing_all();
    let want = (
        ProblemCode::CapabilityRequiresEvidence,
        "capability guards.beforeShell requires passing evidence in certification".to_owned(),
    );
    assert_eq!(refusal(&m, &certification_json(vec![]), b()), want);
    assert_eq!(
        refusal(
            &m,
            &certification_json(vec![evidence_row(C, "1.0.0", "linux-x64", cap, false)]),
            b()
        ),
        want
    );
    // A variant's passing row never backs a declaration.
    let mut with_variant = m.clone();
    with_variant["client"]["variants"] =
        json!([{"certificationName": "example-desktop", "displayName": "Desktop"}]);
    let variant_only = certification_json(vec![evidence_row(
        "example-desktop",
        "1.0.0",
        "linux-x64",
        cap,
        true,
    )]);
    assert_eq!(refusal(&with_variant, &variant_only, b()), want);
    // Any version or platform of the primary will do, even beside a later failure.
    let mixed = certification_json(vec![
        evidence_row(C, "0.1.0", "win32-x64", cap, true),
        evidence_row(C, "2.0.0", "linux-x64", cap, false),
    ]);
    assert!(define(&m, &mixed, b()).is_ok());
}

#[test]
fn evidence_must_name_known_capabilities_and_declared_clients() {
    let m = manifest_json("example", "example", &[]);
    let mut row = evidence_row(C, "1.0.0", "linux-x64", Capability::NextTurn, true);
    row["capability"] = json!("lifecycle.postInvocation");
    assert_eq!(
        refusal(&m, &certification_json(vec![row]), TestBehaviour::new()),
        (
            ProblemCode::UnknownCertifiedCapability,
            "unknown certified capability: lifecycle.postInvocation".to_owned()
        )
    );
    let stranger = evidence_row("stranger", "1.0.0", "linux-x64", Capability::NextTurn, true);
    assert_eq!(
        refusal(
            &m,
            &certification_json(vec![stranger]),
            TestBehaviour::new()
        ),
        (
            ProblemCode::EvidenceClientMismatch,
            "certification evidence client stranger does not match example-cli".to_owned()
        )
    );
    let mut with_variant = m.clone();
    with_variant["client"]["variants"] =
        json!([{"certificationName": "desk", "displayName": "Desk"}]);
    let desk = evidence_row("desk", "1.0.0", "linux-x64", Capability::NextTurn, true);
    assert!(
        define(
            &with_variant,
            &certification_json(vec![desk]),
            TestBehaviour::new()
        )
        .is_ok()
    );
}

fn native_manifest() -> Value {
    let mut m = manifest_json("example", "example", &[Capability::LivePush]);
    m["nativeDelivery"] = json!({
        "minimum": "2.1.0", "anchors": [{"version": "2.1.0", "protocolContract": "example-inbox-v1"}],
        "knownBad": [], "activationKinds": ["native-service"], "offerKind": "wake"
    });
    m
}

fn native_cert() -> Value {
    certification_json(vec![evidence_row(
        C,
        "2.1.0",
        "darwin-arm64",
        Capability::LivePush,
        true,
    )])
}

#[test]
fn a_native_contract_needs_its_methods_and_is_evaluated_through_the_adapter() {
    let b = TestBehaviour::new().backing(Capability::LivePush);
    assert_eq!(
        refusal(&native_manifest(), &native_cert(), b.clone()),
        (
            ProblemCode::NativeRequiresMethod,
            "a native delivery contract requires probe_native_delivery()".to_owned()
        )
    );
    let probe = json!({"supported": true, "clientVersion": "2.2.0", "protocolContract": "example-inbox-v1", "modes": ["livePush"]});
    let a = define(
        &native_manifest(),
        &native_cert(),
        b.native(Some(probe.clone()), None),
    )
    .unwrap();
    assert_eq!(a.native_delivery().unwrap().minimum, "2.1.0");
    let e = a.evaluate_native_eligibility(None, Some(&probe)).unwrap();
    assert!(e.eligible);
    assert_eq!(
        a.evaluate_version_contract(Some("2.0.9"), None).reason_code,
        Some(ReasonCode::BelowMinimumVersion)
    );
    let h = a.validate_native_handshake(Some("2.2.0"), None).unwrap();
    assert_eq!(h.reason_code, Some(ReasonCode::HandshakeFailed));
    // The contract's own rules run inside define_adapter.
    let mut bad = native_manifest();
    bad["nativeDelivery"]["anchors"][0]["platform"] = json!("darwin-arm64");
    assert_eq!(
        refusal(&bad, &native_cert(), TestBehaviour::new().backing_all()).0,
        ProblemCode::NativeAnchorPlatform
    );
}

#[test]
fn the_checks_run_in_the_documented_order() {
    let good_m = || manifest_json("example", "example", &[Capability::BeforeWrite]);
    let good_c = || rows_for(&[Capability::BeforeWrite]);
    let b = || TestBehaviour::new();

    // Identity before certification.
    let mut m = good_m();
    m["displayName"] = json!("");
    assert_eq!(
        refusal(&m, &json!([]), b()).0,
        ProblemCode::MissingDisplayName
    );
    // Certification before variants.
    let mut m = good_m();
    m["client"]["variants"] = json!("desk");
    assert_eq!(
        refusal(&m, &json!({"evidence": 1}), b()).0,
        ProblemCode::EvidenceNotArray
    );
    // Variants before evidence clients.
    let stranger = certification_json(vec![evidence_row(
        "stranger",
        "1.0.0",
        "linux-x64",
        Capability::NextTurn,
        true,
    )]);
    assert_eq!(refusal(&m, &stranger, b()).0, ProblemCode::VariantsNotArray);
    // Evidence clients before the removed certificationFloor.
    let mut m = good_m();
    m["certificationFloor"] = json!("1.0.0");
    assert_eq!(
        refusal(&m, &stranger, b()).0,
        ProblemCode::EvidenceClientMismatch
    );
    assert_eq!(
        refusal(&m, &good_c(), b()).0,
        ProblemCode::CertificationFloorRemoved
    );
    // certificationFloor before the native contract.
    let mut n = native_manifest();
    n["certificationFloor"] = json!("1.0.0");
    assert_eq!(
        refusal(&n, &native_cert(), b()).0,
        ProblemCode::CertificationFloorRemoved
    );
    // The native contract before the capabilities.
    assert_eq!(
        refusal(&native_manifest(), &native_cert(), b()).0,
        ProblemCode::NativeRequiresMethod
    );
    // Per capability: the method before the evidence.
    assert_eq!(
        refusal(&good_m(), &certification_json(vec![]), b()).0,
        ProblemCode::CapabilityRequiresMethod
    );
    // Unknown capabilities are capability-stage problems.
    let mut m = good_m();
    m["capabilities"]["guards"]["beforeDelete"] = json!(true);
    assert_eq!(
        refusal(&m, &good_c(), b().backing_all()),
        (
            ProblemCode::UnknownCapability,
            "unknown capability: guards.beforeDelete".to_owned()
        )
    );
}

#[test]
fn embedded_json_goes_through_define_adapter() {
    let m = manifest_json("example", "example", &[Capability::NextTurn]).to_string();
    let c = rows_for(&[Capability::NextTurn]).to_string();
    assert_eq!(
        Adapter::from_embedded(&m, &c, TestBehaviour::new().boxed())
            .unwrap()
            .id(),
        "example"
    );
    let e = Adapter::from_embedded("{", &c, TestBehaviour::new().boxed()).unwrap_err();
    assert_eq!(
        (e.code(), e.problem().file.as_str()),
        (ProblemCode::InvalidJson, "adapter.json")
    );
    let e = Adapter::from_embedded(&m, "[", TestBehaviour::new().boxed()).unwrap_err();
    assert_eq!(
        (e.code(), e.problem().file.as_str()),
        (ProblemCode::InvalidJson, "certification.json")
    );
    let e = Adapter::from_embedded(&m, r#"{"evidence": []}"#, TestBehaviour::new().boxed())
        .unwrap_err();
    assert_eq!(e.code(), ProblemCode::CapabilityRequiresEvidence);
}

/// What a shipped adapter's build script would embed for `cert`: its table and its text.
fn compiled(cert: &Value) -> (&'static [crate::certification::EvidenceEntry], &'static str) {
    let table = Certification::from_value(cert).unwrap().table();
    (
        Box::leak(table.entries().to_vec().into_boxed_slice()),
        Box::leak(cert.to_string().into_boxed_str()),
    )
}

#[test]
fn a_compiled_table_defines_what_the_full_file_defines() {
    let caps = [Capability::BeforeWrite, Capability::NextTurn];
    let m = manifest_json("example", "example", &caps);
    let mut rows = rows_for(&caps);
    rows["evidence"].as_array_mut().unwrap().push(evidence_row(
        C,
        "1.4.0",
        "linux-x64",
        Capability::NextTurn,
        false,
    ));
    let (table, text) = compiled(&rows);
    let a = Adapter::from_compiled(
        &m.to_string(),
        table,
        text,
        TestBehaviour::new().backing_all().boxed(),
    )
    .unwrap();
    let full = define(&m, &rows, TestBehaviour::new().backing_all()).unwrap();
    assert_eq!(a.declaration(), full.declaration());
    assert_eq!(a.certification(), full.certification());
    assert_eq!(a.certification().evidence.len(), 3);
    let facts = ClientFacts {
        client_version: Some("1.5.0".into()),
        platform: "linux-x64".into(),
        client_name: None,
    };
    assert_eq!(
        a.declaration().explain(&facts),
        full.declaration().explain(&facts)
    );
    assert!(!a.capability_evidence(&facts, Capability::NextTurn).granted);
}

#[test]
fn a_compiled_table_still_refuses_what_the_evidence_does_not_back() {
    let b = || TestBehaviour::new().backing_all().boxed();
    let m = manifest_json("example", "example", &[Capability::BeforeWrite]).to_string();
    let failing = certification_json(vec![evidence_row(
        C,
        "1.0.0",
        "linux-x64",
        Capability::BeforeWrite,
        false,
    )]);
    for cert in [failing, certification_json(vec![])] {
        let (table, text) = compiled(&cert);
        let e = Adapter::from_compiled(&m, table, text, b()).unwrap_err();
        assert_eq!(e.code(), ProblemCode::CapabilityRequiresEvidence, "{cert}");
    }
    let other = certification_json(vec![evidence_row(
        "other-cli",
        "1.0.0",
        "linux-x64",
        Capability::BeforeWrite,
        true,
    )]);
    let (table, text) = compiled(&other);
    let e = Adapter::from_compiled(&m, table, text, b()).unwrap_err();
    assert_eq!(e.code(), ProblemCode::EvidenceClientMismatch);
    let mut unknown = evidence_row(C, "1.0.0", "linux-x64", Capability::BeforeWrite, true);
    unknown["capability"] = json!("guards.beforeDelete");
    let (table, text) = compiled(&certification_json(vec![
        evidence_row(C, "1.0.0", "linux-x64", Capability::BeforeWrite, true),
        unknown,
    ]));
    let e = Adapter::from_compiled(&m, table, text, b()).unwrap_err();
    assert_eq!(e.code(), ProblemCode::UnknownCertifiedCapability);
    let e = Adapter::from_compiled("{", table, text, b()).unwrap_err();
    assert_eq!(e.code(), ProblemCode::InvalidJson);
}

/// A hook builds a shipped adapter without reading its manifest; the declaration it gets
/// when it asks is the one `from_compiled` checks at once, and files that `from_compiled`
/// refuses are refused at that first use, naming the adapter.
#[test]
fn a_deferred_declaration_is_the_checked_one_read_when_first_asked_for() {
    let caps = [Capability::BeforeWrite, Capability::NextTurn];
    let m: &'static str = Box::leak(
        manifest_json("example", "example", &caps)
            .to_string()
            .into(),
    );
    let (table, text) = compiled(&rows_for(&caps));
    let b = || TestBehaviour::new().backing_all().boxed();
    let deferred = Adapter::deferred("example", m, table, text, b());
    let eager = Adapter::from_compiled(m, table, text, b()).unwrap();
    assert_eq!(deferred.declaration(), eager.declaration());
    assert_eq!(deferred.id(), "example");

    let (failing, failing_text) = compiled(&certification_json(vec![evidence_row(
        C,
        "1.0.0",
        "linux-x64",
        Capability::BeforeWrite,
        false,
    )]));
    let m_one: &'static str = Box::leak(
        manifest_json("example", "example", &[Capability::BeforeWrite])
            .to_string()
            .into(),
    );
    assert!(Adapter::from_compiled(m_one, failing, failing_text, b()).is_err());
    for (manifest, table, text) in [(m_one, failing, failing_text), ("{", table, text)] {
        // Built without a look at the files: the behaviour is there at once.
        let refused = Adapter::deferred("example", manifest, table, text, b());
        let _ = refused.behaviour();
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            refused.declaration().manifest.id.clone()
        }))
        .unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(
            message.starts_with("the shipped example adapter is invalid: "),
            "{message}"
        );
    }
}

#[test]
fn a_directory_loads_without_behaviour() {
    let dir = tempfile::tempdir().unwrap();
    let caps = [Capability::BeforeWrite];
    std::fs::write(
        dir.path().join("adapter.json"),
        manifest_json("example", "example", &caps).to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("certification.json"),
        rows_for(&caps).to_string(),
    )
    .unwrap();
    let loaded = AdapterDir::load(dir.path()).unwrap();
    assert_eq!(loaded.declaration.manifest().id.as_str(), "example");
    std::fs::write(dir.path().join("certification.json"), r#"{"evidence": []}"#).unwrap();
    let problems = AdapterDir::load(dir.path()).unwrap_err();
    assert_eq!(problems[0].code, ProblemCode::CapabilityRequiresEvidence);
    let empty = tempfile::tempdir().unwrap();
    let problems = AdapterDir::load(empty.path()).unwrap_err();
    let codes: Vec<ProblemCode> = problems.iter().map(|p| p.code).collect();
    assert_eq!(
        codes,
        vec![ProblemCode::FileMissing, ProblemCode::FileMissing]
    );
}
