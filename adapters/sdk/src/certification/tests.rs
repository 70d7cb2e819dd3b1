use super::*;
use serde_json::json;

fn row() -> Value {
    json!({
        "client": "example-cli", "version": "1.2.0", "platform": "linux-x64", "observedAt": "2026-12-02T10:00:00.000Z",
        "capability": "delivery.nextTurn", "fixture": "fixtures/next-turn/example-1.2.0.json",
        "provenance": "fixtures/certification-provenance.json", "provenanceId": "next-turn-1-2-0",
        "idleBehavior": "offered", "busyBehavior": "queued_after_turn", "authorityLevel": "context",
        "limitations": ["linux only"], "result": "pass"
    })
}

fn edit(key: &str, value: Value) -> Value {
    let mut r = row();
    r[key] = value;
    r
}

fn drop_key(key: &str) -> Value {
    let mut r = row();
    r.as_object_mut().unwrap().remove(key);
    r
}

fn first(value: Value) -> Problem {
    Certification::from_value(&value).unwrap_err().remove(0)
}

#[test]
fn a_valid_file_parses_into_typed_rows() {
    let cert = Certification::from_value(&json!({"evidence": [row()]})).unwrap();
    let r = &cert.evidence[0];
    assert_eq!(
        (r.client.as_str(), r.version.as_str(), r.capability.as_str()),
        ("example-cli", "1.2.0", "delivery.nextTurn")
    );
    assert!(r.passed());
    assert_eq!(r.limitations, vec!["linux only"]);
    assert_eq!(cert.rows("example-cli", "delivery.nextTurn").count(), 1);
    assert_eq!(cert.rows("other", "delivery.nextTurn").count(), 0);
}

#[test]
fn top_level_refusals() {
    let cases = [
        (
            json!([]),
            ProblemCode::CertificationNotObject,
            "",
            "an adapter must declare certification evidence",
        ),
        (
            json!({"evidence": [], "productEvidence": {}}),
            ProblemCode::CertificationUnknownField,
            "productEvidence",
            "unknown certification field productEvidence",
        ),
        (
            json!({"evidence": [], "historicalFixtures": []}),
            ProblemCode::CertificationUnknownField,
            "historicalFixtures",
            "unknown certification field historicalFixtures",
        ),
        (
            json!({}),
            ProblemCode::EvidenceNotArray,
            "evidence",
            "certification.evidence must be an array",
        ),
        (
            json!({"evidence": {}}),
            ProblemCode::EvidenceNotArray,
            "evidence",
            "certification.evidence must be an array",
        ),
    ];
    for (input, code, field, message) in cases {
        let p = first(input.clone());
        assert_eq!(
            (p.code, p.field.as_str(), p.message.as_str()),
            (code, field, message),
            "{input}"
        );
        assert_eq!(p.file, "certification.json");
    }
    assert_eq!(
        Certification::from_value(&json!({"evidence": []}))
            .unwrap()
            .evidence
            .len(),
        0
    );
}

#[test]
fn entry_refusals_name_index_field_and_wording() {
    let mut cases: Vec<(Value, ProblemCode, &str, String)> = vec![
        (
            json!("row"),
            ProblemCode::EvidenceNotObject,
            "evidence[0]",
            "certification evidence 0 must be an object".into(),
        ),
        (
            edit("note", json!("x")),
            ProblemCode::EvidenceUnknownField,
            "evidence[0].note",
            "unknown certification evidence field note".into(),
        ),
        (
            edit("fixture", json!("/abs/x.json")),
            ProblemCode::EvidencePathNotLocal,
            "evidence[0].fixture",
            "certification evidence 0 fixture must be package-local JSON".into(),
        ),
        (
            edit("provenance", json!("fixtures/../p.json")),
            ProblemCode::EvidencePathNotLocal,
            "evidence[0].provenance",
            "certification evidence 0 provenance must be package-local JSON".into(),
        ),
        (
            edit("version", json!("unknown")),
            ProblemCode::EvidenceInexactVersion,
            "evidence[0].version",
            "certification evidence 0 version must be an exact client version".into(),
        ),
        (
            edit("version", json!("1.2")),
            ProblemCode::EvidenceInexactVersion,
            "evidence[0].version",
            "certification evidence 0 version must be an exact client version".into(),
        ),
        (
            edit("platform", json!("linux")),
            ProblemCode::EvidenceInexactPlatform,
            "evidence[0].platform",
            "certification evidence 0 platform must be an exact supported platform".into(),
        ),
        (
            edit("observedAt", json!("2026-02-30")),
            ProblemCode::EvidenceInexactObservedAt,
            "evidence[0].observedAt",
            "certification evidence 0 observedAt must be an exact ISO date or timestamp".into(),
        ),
        (
            edit("result", json!("partial")),
            ProblemCode::EvidenceInvalidResult,
            "evidence[0].result",
            "certification evidence 0 result must be pass or fail".into(),
        ),
        (
            drop_key("result"),
            ProblemCode::EvidenceInvalidResult,
            "evidence[0].result",
            "certification evidence 0 result must be pass or fail".into(),
        ),
        (
            edit("limitations", json!(["", "x"])),
            ProblemCode::EvidenceInvalidLimitations,
            "evidence[0].limitations",
            "certification evidence 0 limitations must be an array of text".into(),
        ),
        (
            edit("limitations", json!("none")),
            ProblemCode::EvidenceInvalidLimitations,
            "evidence[0].limitations",
            "certification evidence 0 limitations must be an array of text".into(),
        ),
    ];
    for key in TEXT_KEYS {
        for bad in [Value::Null, json!(""), json!(" padded"), json!(3)] {
            let field: &'static str = Box::leak(format!("evidence[0].{key}").into_boxed_str());
            let input = if bad.is_null() {
                drop_key(key)
            } else {
                edit(key, bad)
            };
            cases.push((
                input,
                ProblemCode::EvidenceMissingText,
                field,
                format!("certification evidence 0 must declare {key}"),
            ));
        }
    }
    for (entry, code, field, message) in cases {
        let p = first(json!({"evidence": [entry.clone()]}));
        assert_eq!(
            (p.code, p.field.as_str(), p.message.as_str()),
            (code, field, message.as_str()),
            "{entry}"
        );
    }
}

#[test]
fn checks_run_in_the_documented_order() {
    // Unknown key before text keys; text keys in their order; paths before version.
    let mut entry = row();
    entry["zz"] = json!(1);
    entry["platform"] = json!("");
    entry["client"] = json!("");
    entry["fixture"] = json!("x.json");
    entry["version"] = json!("nope");
    let codes: Vec<(ProblemCode, String)> =
        Certification::from_value(&json!({"evidence": [entry]}))
            .unwrap_err()
            .into_iter()
            .map(|p| (p.code, p.field))
            .collect();
    assert_eq!(
        codes,
        vec![
            (
                ProblemCode::EvidenceUnknownField,
                "evidence[0].zz".to_owned()
            ),
            (
                ProblemCode::EvidenceMissingText,
                "evidence[0].client".to_owned()
            ),
            (
                ProblemCode::EvidenceMissingText,
                "evidence[0].platform".to_owned()
            ),
            (
                ProblemCode::EvidencePathNotLocal,
                "evidence[0].fixture".to_owned()
            ),
            (
                ProblemCode::EvidenceInexactVersion,
                "evidence[0].version".to_owned()
            ),
        ]
    );
}

#[test]
fn tuples_are_unique_and_compared_structurally() {
    let dup = first(json!({"evidence": [row(), edit("observedAt", json!("2026-12-03"))]}));
    assert_eq!(dup.code, ProblemCode::DuplicateTuple);
    assert_eq!(dup.message, "duplicate certification tuple at evidence 1");
    assert_eq!(dup.field, "evidence[1]");
    // Another platform or capability is another tuple.
    assert!(
        Certification::from_value(
            &json!({"evidence": [row(), edit("platform", json!("darwin-arm64"))]})
        )
        .is_ok()
    );
    assert!(
        Certification::from_value(
            &json!({"evidence": [row(), edit("capability", json!("delivery.livePush"))]})
        )
        .is_ok()
    );
    // A NUL inside a value cannot make two different tuples equal.
    let a = edit("client", json!("a\u{0}b"));
    let mut b = edit("client", json!("a"));
    b["version"] = json!("1.2.0");
    assert!(Certification::from_value(&json!({"evidence": [a, b]})).is_ok());
}

#[test]
fn every_entry_is_reported() {
    let problems = Certification::from_value(
        &json!({"evidence": [edit("result", json!("x")), edit("version", json!("x"))]}),
    )
    .unwrap_err();
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, vec!["evidence[0].result", "evidence[1].version"]);
}

mod provenance_file {
    use super::super::provenance::{ClaimOutcome, ProvenanceFile};
    use super::*;

    pub(crate) fn record() -> Value {
        json!({
            "id": "next-turn-1-2-0", "client": "example-cli", "version": "1.2.0", "platform": "linux-x64",
            "observedAt": "2026-12-02T10:00:00.000Z", "fixture": "fixtures/next-turn/example-1.2.0.json",
            "sha256": "a".repeat(64), "event": "UserPromptSubmit", "tool": null,
            "claims": [{"capability": "delivery.nextTurn", "result": "pass",
                        "outcome": {"kind": "model-context-observed", "idle": "offered", "busy": "queued_after_turn",
                                    "authority": "context", "limitations": ["linux only"]}}]
        })
    }

    fn file(records: Vec<Value>) -> Value {
        json!({"schemaVersion": 1, "captures": records})
    }

    fn first_problem(records: Vec<Value>) -> Problem {
        ProvenanceFile::from_value("fixtures/certification-provenance.json", &file(records))
            .unwrap_err()
            .remove(0)
    }

    fn with(key: &str, value: Value) -> Value {
        let mut r = record();
        r[key] = value;
        r
    }

    #[test]
    fn valid_records_parse() {
        let mut r = record();
        r["productEvidence"] = json!({"fixture": "fixtures/p.json", "sha256": "b".repeat(64)});
        r["historicalFixtures"] =
            json!([{"fixture": "fixtures/old.json", "sha256": "c".repeat(64)}]);
        let failed = json!({"capability": "delivery.livePush", "result": "fail", "outcome": {"kind": "native-capture-failed"}});
        r["claims"].as_array_mut().unwrap().push(failed);
        let parsed = ProvenanceFile::from_value("p", &file(vec![r])).unwrap();
        let rec = &parsed.captures[0];
        assert_eq!(
            rec.product_evidence.as_ref().unwrap().fixture,
            "fixtures/p.json"
        );
        assert_eq!(rec.historical_fixtures.len(), 1);
        assert_eq!(rec.claims[1].outcome, ClaimOutcome::NativeCaptureFailed);
        assert_eq!(rec.event.as_deref(), Some("UserPromptSubmit"));
        assert_eq!(rec.tool, None);
    }

    #[test]
    fn refusals() {
        let cases: Vec<(Value, ProblemCode, &str)> = vec![
            (
                file(vec![])
                    .as_object()
                    .cloned()
                    .map(|mut m| {
                        m.insert("schemaVersion".into(), json!(2));
                        Value::Object(m)
                    })
                    .unwrap(),
                ProblemCode::ProvenanceSchemaVersion,
                "schemaVersion",
            ),
            (
                json!({"schemaVersion": 1}),
                ProblemCode::ProvenanceCapturesNotArray,
                "captures",
            ),
            (
                json!({"schemaVersion": 1, "captures": [], "x": 1}),
                ProblemCode::ProvenanceUnknownField,
                "x",
            ),
            (json!([]), ProblemCode::ProvenanceNotObject, ""),
        ];
        for (input, code, field) in cases {
            let p = ProvenanceFile::from_value("p", &input)
                .unwrap_err()
                .remove(0);
            assert_eq!((p.code, p.field.as_str()), (code, field), "{input}");
        }
        let record_cases: Vec<(Value, ProblemCode, &str)> = vec![
            (
                with("id", json!("Bad_Id")),
                ProblemCode::RecordInvalidField,
                "captures[0].id",
            ),
            (
                with("id", json!("a")),
                ProblemCode::RecordInvalidField,
                "captures[0].id",
            ),
            (
                with("sha256", json!("A".repeat(64))),
                ProblemCode::RecordInvalidField,
                "captures[0].sha256",
            ),
            (
                with("fixture", json!("elsewhere/x.json")),
                ProblemCode::RecordInvalidField,
                "captures[0].fixture",
            ),
            (
                with("event", json!(3)),
                ProblemCode::RecordInvalidField,
                "captures[0].event",
            ),
            (
                with("claims", json!({})),
                ProblemCode::RecordInvalidField,
                "captures[0].claims",
            ),
            (
                with("claims", json!([{"capability": "x", "result": "pass"}])),
                ProblemCode::RecordInvalidField,
                "captures[0].claims[0]",
            ),
            (
                with(
                    "claims",
                    json!([{"capability": "x", "result": "fail", "outcome": {"kind": "native-capture-failed", "idle": "x"}}]),
                ),
                ProblemCode::RecordInvalidField,
                "captures[0].claims[0]",
            ),
            (
                with("extra", json!(1)),
                ProblemCode::RecordUnknownField,
                "captures[0].extra",
            ),
            (
                with(
                    "productEvidence",
                    json!({"fixture": "fixtures/p.json", "sha256": "b".repeat(64), "extra": 1}),
                ),
                ProblemCode::ProductEvidenceInvalid,
                "captures[0].productEvidence",
            ),
            (
                with(
                    "productEvidence",
                    json!({"fixture": "fixtures/p.json", "sha256": "short"}),
                ),
                ProblemCode::ProductEvidenceInvalid,
                "captures[0].productEvidence",
            ),
            (
                with(
                    "historicalFixtures",
                    json!([{"fixture": "../x.json", "sha256": "c".repeat(64)}]),
                ),
                ProblemCode::ProductEvidenceInvalid,
                "captures[0].historicalFixtures[0]",
            ),
        ];
        for (input, code, field) in record_cases {
            let p = first_problem(vec![input.clone()]);
            assert_eq!((p.code, p.field.as_str()), (code, field), "{input}");
        }
        let p = first_problem(vec![record(), record()]);
        assert_eq!(
            (p.code, p.field.as_str()),
            (ProblemCode::RecordDuplicateId, "captures[1].id")
        );
    }
}

mod selection_rules {
    use std::collections::BTreeMap;

    use super::super::provenance::ProvenanceFile;
    use super::super::selection::check_selection;
    use super::provenance_file::record;
    use super::*;

    fn check(rows: Vec<Value>, records: Vec<Value>) -> Vec<(ProblemCode, String)> {
        let cert = Certification::from_value(&json!({"evidence": rows})).unwrap();
        let prov =
            ProvenanceFile::from_value("p", &json!({"schemaVersion": 1, "captures": records}))
                .unwrap();
        let files = BTreeMap::from([("fixtures/certification-provenance.json".to_owned(), prov)]);
        check_selection(&cert, &files)
            .into_iter()
            .map(|p| (p.code, p.field))
            .collect()
    }

    fn rec_with(key: &str, value: Value) -> Value {
        let mut r = record();
        r[key] = value;
        r
    }

    #[test]
    fn a_matching_record_selects_cleanly() {
        assert_eq!(check(vec![row()], vec![record()]), vec![]);
    }

    #[test]
    fn identity_must_be_equal_key_by_key() {
        for (key, value) in [
            ("client", json!("other")),
            ("version", json!("1.2.1")),
            ("platform", json!("darwin-arm64")),
            ("observedAt", json!("2026-12-02T10:00:00Z")),
            ("fixture", json!("fixtures/other.json")),
        ] {
            assert_eq!(
                check(vec![row()], vec![rec_with(key, value)]),
                vec![(
                    ProblemCode::ProvenanceIdentityDiffers,
                    format!("evidence[0].{key}")
                )],
                "{key}"
            );
        }
    }

    #[test]
    fn exactly_one_record_must_be_selected() {
        assert_eq!(
            check(vec![row()], vec![rec_with("id", json!("other-id"))]),
            vec![(
                ProblemCode::ProvenanceNotSelected,
                "evidence[0].provenanceId".to_owned()
            )]
        );
    }

    #[test]
    fn the_claim_must_exist_and_agree() {
        assert_eq!(
            check(
                vec![edit("capability", json!("delivery.livePush"))],
                vec![record()]
            ),
            vec![(
                ProblemCode::ClaimMissing,
                "evidence[0].capability".to_owned()
            )]
        );
        assert_eq!(
            check(vec![edit("result", json!("fail"))], vec![record()]),
            vec![(ProblemCode::ClaimDiffers, "evidence[0].result".to_owned())]
        );
        for (key, outcome_key, value) in [
            ("idleBehavior", "idle", json!("unobserved")),
            ("busyBehavior", "busy", json!("rejected_busy")),
            ("authorityLevel", "authority", json!("blocking")),
            ("limitations", "limitations", json!([])),
        ] {
            let mut r = record();
            r["claims"][0]["outcome"][outcome_key] = value;
            assert_eq!(
                check(vec![row()], vec![r]),
                vec![(ProblemCode::ClaimDiffers, format!("evidence[0].{key}"))],
                "{key}"
            );
        }
        let mut failed = record();
        failed["claims"][0] = json!({"capability": "delivery.nextTurn", "result": "pass", "outcome": {"kind": "native-capture-failed"}});
        assert_eq!(
            check(vec![row()], vec![failed]),
            vec![(ProblemCode::ClaimDiffers, "evidence[0].result".to_owned())]
        );
    }
}
