use super::*;
use crate::capabilities::Capability;
use crate::certification::Certification;
use crate::define::testing::evidence_row;
use crate::error::ProblemCode;
use serde_json::{Value, json};

const P: &str = "example-cli";
const D: &str = "example-desktop";

fn cert() -> Certification {
    let rows = vec![
        evidence_row(P, "2.1.252", "darwin-arm64", Capability::LivePush, false),
        evidence_row(P, "2.1.282", "darwin-arm64", Capability::LivePush, true),
        evidence_row(P, "2.1.300", "linux-x64", Capability::LivePush, true),
        evidence_row(D, "2.19.1", "darwin-arm64", Capability::LivePush, true),
        evidence_row(P, "2.1.290", "linux-x64", Capability::NextTurn, true),
    ];
    Certification::from_value(&json!({ "evidence": rows })).unwrap()
}

fn contract() -> Value {
    json!({
        "minimum": "2.1.282",
        "anchors": [
            {"version": "2.1.282", "protocolContract": "example-inbox-v1"},
            {"version": "2.19.1", "protocolContract": "example-desktop-v1", "client": D}
        ],
        "knownBad": [{"version": "2.1.290", "reasonCode": "known_bad_version"},
                     {"from": "2.1.295", "to": "2.1.297", "reasonCode": "known_bad_version"}],
        "activationKinds": ["native-service"],
        "offerKind": "wake"
    })
}

fn validate(v: &Value) -> Result<NativeDelivery, Vec<crate::error::Problem>> {
    validate_native_delivery(v, &cert(), P, &[P, D])
}

fn with(path: &[&str], value: Value) -> Value {
    let mut v = contract();
    let mut cur = &mut v;
    for key in &path[..path.len() - 1] {
        cur = match key.parse::<usize>() {
            Ok(i) => &mut cur[i],
            Err(_) => &mut cur[*key],
        };
    }
    let last = path[path.len() - 1];
    match last.parse::<usize>() {
        Ok(i) => cur[i] = value,
        Err(_) => cur[last] = value,
    }
    v
}

fn without(key: &str) -> Value {
    let mut v = contract();
    v.as_object_mut().unwrap().remove(key);
    v
}

fn valid() -> NativeDelivery {
    validate(&contract()).unwrap()
}

#[test]
fn a_valid_contract_fills_defaults() {
    let c = valid();
    assert_eq!(c.minimum, "2.1.282");
    assert_eq!(c.policy_source, PolicySource::InstallationRecord);
    assert_eq!(c.offer_kind, OfferKind::Wake);
    assert_eq!(c.anchors[1].client.as_deref(), Some(D));
    assert_eq!(
        c.primary_anchor(P).unwrap().protocol_contract,
        "example-inbox-v1"
    );
    let c = validate(&without("offerKind")).unwrap();
    assert_eq!(c.offer_kind, OfferKind::Message);
}

#[test]
fn contract_refusals_in_order_with_messages() {
    let cases: Vec<(Value, ProblemCode, &str)> = vec![
        (
            with(&["minimumByPlatform"], json!({"darwin-arm64": "2.1.258"})),
            ProblemCode::NativeMinimumByPlatform,
            "nativeDelivery.minimumByPlatform is no longer declared; a capture's minimum applies on every platform, so declare nativeDelivery.minimum instead (docs/design/2026-09-26-native-delivery-across-platforms.md)",
        ),
        (
            json!("2.1.282"),
            ProblemCode::NativeNotObject,
            "nativeDelivery must be an object",
        ),
        (
            with(&["maximum"], json!("9.0.0")),
            ProblemCode::NativeUnknownField,
            "unknown nativeDelivery field maximum",
        ),
        (
            without("activationKinds"),
            ProblemCode::NativeMissingField,
            "nativeDelivery requires activationKinds",
        ),
        (
            without("knownBad"),
            ProblemCode::NativeMissingField,
            "nativeDelivery requires knownBad",
        ),
        (
            with(&["policySource"], json!("bootstrap-environment")),
            ProblemCode::NativePolicySource,
            "nativeDelivery.policySource must be installation-record",
        ),
        (
            with(&["offerKind"], json!("push")),
            ProblemCode::NativeOfferKind,
            "nativeDelivery.offerKind must be message or wake",
        ),
        (
            with(&["minimum"], json!("2.1.282-rc.1")),
            ProblemCode::NativeMinimumNotStable,
            "nativeDelivery.minimum must be a stable version X.Y.Z (a build suffix +... is allowed, a prerelease is not)",
        ),
        (
            with(&["anchors"], json!([])),
            ProblemCode::NativeAnchorsEmpty,
            "nativeDelivery.anchors must be a non-empty array",
        ),
        (
            with(&["anchors", "0", "platform"], json!("darwin-arm64")),
            ProblemCode::NativeAnchorPlatform,
            "nativeDelivery anchor 0 names a platform; an anchor applies on every platform, and where its capture was taken is provenance",
        ),
        (
            with(&["anchors", "0", "note"], json!("x")),
            ProblemCode::NativeAnchorUnknownField,
            "nativeDelivery anchor 0 has unknown field note",
        ),
        (
            with(&["anchors", "0"], json!({"version": "2.1.282"})),
            ProblemCode::NativeAnchorMissingField,
            "nativeDelivery anchor 0 requires protocolContract",
        ),
        (
            with(&["anchors", "0", "version"], json!("2.1")),
            ProblemCode::NativeAnchorVersion,
            "nativeDelivery anchor 0 version must be a stable version",
        ),
        (
            with(&["anchors", "1", "client"], json!("stranger")),
            ProblemCode::NativeAnchorUndeclaredClient,
            "nativeDelivery anchor 1 names client stranger, which the adapter does not declare",
        ),
        (
            with(&["anchors", "0", "version"], json!("2.1.252")),
            ProblemCode::NativeAnchorBelowMinimum,
            "nativeDelivery anchor 2.1.252 is below the minimum 2.1.282: the minimum must be the first passing capture",
        ),
        (
            with(&["anchors", "0", "protocolContract"], json!("Inbox_V1")),
            ProblemCode::NativeAnchorProtocol,
            "nativeDelivery anchor 0 protocolContract must match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$",
        ),
        (
            with(&["anchors", "0", "version"], json!("2.1.290")),
            ProblemCode::NativeAnchorUnevidenced,
            "nativeDelivery anchor 2.1.290 has no passing delivery.livePush certification",
        ),
        (
            // The desktop's 2.19.1 livePush row belongs to the variant, not the primary.
            with(
                &["anchors", "1"],
                json!({"version": "2.19.1", "protocolContract": "example-desktop-v1"}),
            ),
            ProblemCode::NativeAnchorUnevidenced,
            "nativeDelivery anchor 2.19.1 has no passing delivery.livePush certification",
        ),
        (
            with(
                &["anchors", "1", "protocolContract"],
                json!("example-inbox-v1"),
            ),
            ProblemCode::NativeProtocolTwoOwners,
            "nativeDelivery protocol example-inbox-v1 is anchored for both example-cli and example-desktop",
        ),
        (
            with(&["minimum"], json!("2.1.250")),
            ProblemCode::NativeMinimumNotAnchor,
            "nativeDelivery minimum 2.1.250 must be the first passing capture: no anchor matches it",
        ),
        (
            with(&["minimum"], json!("2.1.300")).pipe(|mut v| {
                v["anchors"][0]["version"] = json!("2.1.300");
                v
            }),
            ProblemCode::NativeMinimumNotAnchor,
            "nativeDelivery minimum 2.1.300 must be the first passing capture: delivery.livePush passed at 2.1.282",
        ),
        (
            with(&["knownBad"], json!({})),
            ProblemCode::NativeKnownBadInvalid,
            "nativeDelivery.knownBad must be an array",
        ),
        (
            with(&["knownBad", "0", "reasonCode"], json!("broken")),
            ProblemCode::NativeKnownBadInvalid,
            "nativeDelivery knownBad 0 reasonCode must be known_bad_version",
        ),
        (
            with(&["knownBad", "0", "to"], json!("2.1.291")),
            ProblemCode::NativeKnownBadInvalid,
            "nativeDelivery knownBad 0 has unknown field to",
        ),
        (
            with(&["knownBad", "1", "from"], json!("2.1.299")),
            ProblemCode::NativeKnownBadInvalid,
            "nativeDelivery knownBad 1 from 2.1.299 is above to 2.1.297",
        ),
        (
            with(&["knownBad", "1", "to"], json!("2.1.x")),
            ProblemCode::NativeKnownBadInvalid,
            "nativeDelivery knownBad 1 to must be a stable version",
        ),
        (
            with(&["activationKinds"], json!([])),
            ProblemCode::NativeActivationKinds,
            "nativeDelivery.activationKinds must be a non-empty list of distinct native-config or native-service",
        ),
        (
            with(
                &["activationKinds"],
                json!(["native-service", "native-service"]),
            ),
            ProblemCode::NativeActivationKinds,
            "nativeDelivery.activationKinds must be a non-empty list of distinct native-config or native-service",
        ),
        (
            with(&["activationKinds"], json!(["shell-bootstrap"])),
            ProblemCode::NativeActivationKinds,
            "nativeDelivery.activationKinds: shell-bootstrap can no longer be planned (old install records of one stay readable)",
        ),
    ];
    for (input, code, message) in cases {
        let problems = validate(&input).unwrap_err();
        assert_eq!(
            (problems[0].code, problems[0].message.as_str()),
            (code, message),
            "{input}"
        );
        assert_eq!(problems[0].file, "adapter.json");
        assert!(
            problems[0].field.starts_with("nativeDelivery"),
            "{}",
            problems[0].field
        );
    }
}

trait Pipe: Sized {
    fn pipe(self, f: impl FnOnce(Self) -> Self) -> Self {
        f(self)
    }
}
impl Pipe for Value {}

#[test]
fn minimum_by_platform_is_refused_before_anything_else() {
    let problems = validate(&json!({"minimumByPlatform": {}, "bogus": 1})).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].code, ProblemCode::NativeMinimumByPlatform);
}

#[test]
fn known_bad_covers_exact_versions_and_inclusive_intervals_by_triple() {
    let c = valid();
    for (version, bad) in [
        ("2.1.290", true),
        ("2.1.290-beta.1", true),
        ("2.1.291", false),
        ("2.1.295", true),
        ("2.1.296", true),
        ("2.1.297", true),
        ("2.1.297+build", true),
        ("2.1.298", false),
        ("2.1.294", false),
        ("unknown", false),
    ] {
        assert_eq!(c.is_known_bad(version), bad, "{version}");
    }
}

fn reason(
    version: Option<&str>,
    protocol: Option<&str>,
) -> (Option<ReasonCode>, Option<String>, Option<String>) {
    let c = valid();
    let v = evaluate_version_contract(Some(&c), P, version, protocol);
    (v.reason_code, v.minimum_version, v.protocol_contract)
}

#[test]
fn the_static_version_rule() {
    use ReasonCode::*;
    let inbox = Some("example-inbox-v1".to_owned());
    let min = Some("2.1.282".to_owned());
    type Case<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Option<ReasonCode>,
        Option<String>,
        Option<String>,
    );
    let cases: Vec<Case> = vec![
        (Some("2.1.282"), None, None, min.clone(), inbox.clone()),
        (Some("9.0.0"), None, None, min.clone(), inbox.clone()),
        (
            Some("2.1.281"),
            None,
            Some(BelowMinimumVersion),
            min.clone(),
            inbox.clone(),
        ),
        (
            Some("2.1.282-beta.1"),
            None,
            None,
            min.clone(),
            inbox.clone(),
        ),
        (
            Some("2.1.290"),
            None,
            Some(KnownBadVersion),
            min.clone(),
            inbox.clone(),
        ),
        (
            Some("2.1.290-beta.1"),
            None,
            Some(KnownBadVersion),
            min.clone(),
            inbox.clone(),
        ),
        (
            Some("2.1.296"),
            None,
            Some(KnownBadVersion),
            min.clone(),
            inbox.clone(),
        ),
        (
            Some("unknown"),
            None,
            Some(VersionUnavailable),
            min.clone(),
            inbox.clone(),
        ),
        (
            None,
            None,
            Some(VersionUnavailable),
            min.clone(),
            inbox.clone(),
        ),
        (
            Some("2.1.290"),
            Some("example-inbox-v1"),
            Some(KnownBadVersion),
            min.clone(),
            inbox.clone(),
        ),
        // Another protocol: its own floor, no knownBad.
        (
            Some("2.19.1"),
            Some("example-desktop-v1"),
            None,
            Some("2.19.1".into()),
            Some("example-desktop-v1".into()),
        ),
        (
            Some("2.19.0"),
            Some("example-desktop-v1"),
            Some(BelowMinimumVersion),
            Some("2.19.1".into()),
            Some("example-desktop-v1".into()),
        ),
        (
            Some("2.1.290"),
            Some("example-desktop-v1"),
            Some(BelowMinimumVersion),
            Some("2.19.1".into()),
            Some("example-desktop-v1".into()),
        ),
        (
            None,
            Some("example-desktop-v1"),
            Some(VersionUnavailable),
            Some("2.19.1".into()),
            Some("example-desktop-v1".into()),
        ),
        (
            Some("999.0.0"),
            Some("any-v1"),
            Some(ProtocolMismatch),
            min.clone(),
            inbox.clone(),
        ),
    ];
    for (version, protocol, code, minimum, contract) in cases {
        assert_eq!(
            reason(version, protocol),
            (code, minimum, contract),
            "{version:?} {protocol:?}"
        );
    }
    let none = evaluate_version_contract(None, P, Some("1.0.0"), None);
    assert_eq!(
        (
            none.reason_code,
            none.minimum_version,
            none.protocol_contract
        ),
        (Some(NativeDeliveryUnsupported), None, None)
    );
}

fn probe(version: &str, contract: &str, modes: Value) -> Value {
    json!({"supported": true, "clientVersion": version, "protocolContract": contract,
           "executableFingerprint": null, "modes": modes, "reasonCode": null})
}

fn eligible(
    client_version: Option<&str>,
    p: Option<&Value>,
) -> (bool, Option<ReasonCode>, Vec<Mode>) {
    let e = evaluate_native_eligibility(Some(&valid()), P, client_version, p).unwrap();
    (e.eligible, e.reason_code, e.modes)
}

#[test]
fn eligibility_with_a_probe() {
    use ReasonCode::*;
    let ok = probe(
        "2.1.300",
        "example-inbox-v1",
        json!(["replyRoute", "livePush"]),
    );
    assert_eq!(
        eligible(Some("2.1.300"), Some(&ok)),
        (true, None, vec![Mode::LivePush, Mode::ReplyRoute])
    );
    // The probe's version serves over the caller's.
    assert!(eligible(Some("1.0.0"), Some(&ok)).0);
    assert_eq!(
        eligible(Some("2.1.300"), None),
        (false, Some(FeatureProbeFailed), vec![])
    );
    assert_eq!(
        eligible(Some("2.1.300"), Some(&Value::Null)).1,
        Some(FeatureProbeFailed)
    );
    let old = probe("2.1.281", "example-inbox-v1", json!(["livePush"]));
    assert_eq!(
        eligible(Some("2.1.300"), Some(&old)).1,
        Some(BelowMinimumVersion)
    );
    let mut refused = ok.clone();
    refused["supported"] = json!(false);
    assert_eq!(
        eligible(Some("2.1.300"), Some(&refused)).1,
        Some(FeatureProbeFailed)
    );
    refused["reasonCode"] = json!("native_endpoint_unavailable");
    assert_eq!(
        eligible(Some("2.1.300"), Some(&refused)).1,
        Some(NativeEndpointUnavailable)
    );
    let other = probe("2.1.300", "unknown-v9", json!(["livePush"]));
    assert_eq!(
        eligible(Some("2.1.300"), Some(&other)).1,
        Some(ProtocolMismatch)
    );
    let no_push = probe("2.1.300", "example-inbox-v1", json!(["idleWake"]));
    assert_eq!(
        eligible(Some("2.1.300"), Some(&no_push)).1,
        Some(FeatureProbeFailed)
    );
    // A variant's protocol is judged against its own floor.
    let desktop = probe("2.19.4", "example-desktop-v1", json!(["livePush"]));
    let e = evaluate_native_eligibility(Some(&valid()), P, None, Some(&desktop)).unwrap();
    assert!(e.eligible);
    assert_eq!(e.minimum_version.as_deref(), Some("2.19.1"));
    assert_eq!(e.protocol_contract.as_deref(), Some("example-desktop-v1"));
    // No contract at all.
    let none = evaluate_native_eligibility(None, P, Some("2.1.300"), Some(&ok)).unwrap();
    assert_eq!(
        (
            none.eligible,
            none.reason_code,
            none.minimum_version,
            none.protocol_contract,
            none.modes
        ),
        (false, Some(NativeDeliveryUnsupported), None, None, vec![])
    );
}

#[test]
fn the_platform_is_never_an_input() {
    // Every anchor is eligible with a probe that reports its own version and contract,
    // whatever platform the evidence was captured on.
    let c = valid();
    for anchor in &c.anchors {
        let p = probe(
            &anchor.version,
            &anchor.protocol_contract,
            json!(["livePush"]),
        );
        let e = evaluate_native_eligibility(Some(&c), P, None, Some(&p)).unwrap();
        assert!(e.eligible, "{anchor:?}");
    }
}

#[test]
fn malformed_probes_are_errors() {
    let base = probe("2.1.300", "example-inbox-v1", json!(["livePush"]));
    let cases: Vec<(&str, Value)> = vec![
        ("extra", json!(1)),
        ("supported", json!("yes")),
        ("clientVersion", json!(3)),
        ("protocolContract", json!("Bad Contract")),
        ("executableFingerprint", json!("md5:abc")),
        ("modes", json!(["teleport"])),
        ("modes", json!(["livePush", "livePush"])),
        ("reasonCode", json!("made_up")),
    ];
    for (key, value) in cases {
        let mut p = base.clone();
        p[key] = value;
        let err =
            evaluate_native_eligibility(Some(&valid()), P, Some("2.1.300"), Some(&p)).unwrap_err();
        assert_eq!(err.code, ProblemCode::ProbeMalformed, "{key}");
        assert_eq!(err.field, key);
    }
    let mut fp = base.clone();
    fp["executableFingerprint"] = json!(format!("sha256:{}", "0".repeat(64)));
    assert!(
        evaluate_native_eligibility(Some(&valid()), P, None, Some(&fp))
            .unwrap()
            .eligible
    );
    // A static refusal comes before the shape check.
    let mut old_and_bad = base.clone();
    old_and_bad["clientVersion"] = json!("1.0.0");
    old_and_bad["extra"] = json!(1);
    assert_eq!(
        evaluate_native_eligibility(Some(&valid()), P, None, Some(&old_and_bad))
            .unwrap()
            .reason_code,
        Some(ReasonCode::BelowMinimumVersion)
    );
}

fn handshake(supported: bool) -> Value {
    if supported {
        json!({"supported": true, "clientVersion": "2.1.300", "protocolContract": "example-inbox-v1", "modes": ["livePush"],
               "opaqueEndpointRef": "endpoint-1", "leaseUntil": "2026-12-02T10:00:00.000Z", "reasonCode": null})
    } else {
        json!({"supported": false, "clientVersion": "2.1.300", "protocolContract": null, "modes": [],
               "opaqueEndpointRef": null, "leaseUntil": null, "reasonCode": "native_session_unavailable"})
    }
}

#[test]
fn handshakes() {
    use ReasonCode::*;
    let c = valid();
    let ok = validate_native_handshake(Some(&c), P, Some("1.0.0"), Some(&handshake(true))).unwrap();
    assert!(ok.ok);
    assert_eq!(ok.client_version.as_deref(), Some("2.1.300"));
    assert_eq!(ok.opaque_endpoint_ref.as_deref(), Some("endpoint-1"));
    assert_eq!(ok.modes, vec![Mode::LivePush]);
    let missing = validate_native_handshake(Some(&c), P, Some("2.1.300"), None).unwrap();
    assert_eq!(
        (missing.ok, missing.reason_code, missing.client_version),
        (false, Some(HandshakeFailed), None)
    );
    let refused = validate_native_handshake(Some(&c), P, None, Some(&handshake(false))).unwrap();
    assert_eq!(
        (refused.ok, refused.reason_code, refused.client_version),
        (false, Some(NativeSessionUnavailable), None)
    );
    let mut plain = handshake(false);
    plain["reasonCode"] = Value::Null;
    assert_eq!(
        validate_native_handshake(Some(&c), P, None, Some(&plain))
            .unwrap()
            .reason_code,
        Some(HandshakeFailed)
    );
    let mut other = handshake(true);
    other["protocolContract"] = json!("zzz-v1");
    assert_eq!(
        validate_native_handshake(Some(&c), P, None, Some(&other))
            .unwrap()
            .reason_code,
        Some(ProtocolMismatch)
    );
    let mut bad_version = handshake(true);
    bad_version["clientVersion"] = json!("2.1.296");
    assert_eq!(
        validate_native_handshake(Some(&c), P, None, Some(&bad_version))
            .unwrap()
            .reason_code,
        Some(KnownBadVersion)
    );
}

#[test]
fn handshake_shape_and_the_launch_option_rule() {
    let c = valid();
    let run = |h: &Value| validate_native_handshake(Some(&c), P, None, Some(h));
    let mut refused = handshake(false);
    refused["launchOption"] = json!("--search");
    let verdict = run(&refused).unwrap();
    assert_eq!(verdict.launch_option.as_deref(), Some("--search"));
    assert_eq!(
        serde_json::to_value(&verdict).unwrap()["launchOption"],
        json!("--search")
    );
    refused["launchOption"] = json!("-s");
    assert_eq!(run(&refused).unwrap().launch_option.as_deref(), Some("-s"));
    for bad in [
        json!("--search=x"),
        json!("search"),
        json!("--Search"),
        json!("---x"),
        json!(format!("--{}", "a".repeat(39))),
        json!(3),
    ] {
        refused["launchOption"] = bad.clone();
        let err = run(&refused).unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (ProblemCode::HandshakeMalformed, "launchOption"),
            "{bad}"
        );
    }
    refused["launchOption"] = json!(format!("--{}", "a".repeat(38)));
    assert!(run(&refused).is_ok(), "40 characters is the limit");
    let mut accepted = handshake(true);
    accepted["launchOption"] = json!("--search");
    assert_eq!(run(&accepted).unwrap_err().field, "launchOption");
    let cases: Vec<(bool, &str, Value)> = vec![
        (true, "opaqueEndpointRef", json!("")),
        (true, "opaqueEndpointRef", Value::Null),
        (true, "leaseUntil", json!("tomorrow")),
        (true, "leaseUntil", json!("2026-12-02T10:00:00")),
        (false, "opaqueEndpointRef", json!("endpoint")),
        (false, "leaseUntil", json!("2026-12-02T10:00:00Z")),
        (true, "extra", json!(1)),
        (true, "executableFingerprint", Value::Null),
    ];
    for (supported, key, value) in cases {
        let mut h = handshake(supported);
        h[key] = value;
        let err = run(&h).unwrap_err();
        assert_eq!(
            (err.code, err.field.as_str()),
            (ProblemCode::HandshakeMalformed, key),
            "{supported} {key}"
        );
    }
}

#[test]
fn reason_codes_are_the_listed_twenty() {
    assert_eq!(ReasonCode::ALL.len(), 20);
    for code in ReasonCode::ALL {
        assert_eq!(ReasonCode::parse(code.as_str()), Some(*code));
        assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
    }
    assert_eq!(ReasonCode::parse("nope"), None);
}
