use super::*;
use crate::certification::Certification;
use serde_json::{Value, json};

const CAP: Capability = Capability::BeforeWrite;

fn manifest(declared: bool) -> Manifest {
    Manifest::from_value(&json!({
        "id": "example", "displayName": "Example",
        "client": {"command": "example", "certificationName": "example-cli",
                   "variants": [{"certificationName": "example-desktop", "displayName": "Desktop"}]},
        "capabilities": {"guards": {"beforeWrite": declared}}
    }))
    .unwrap()
}

/// `(client, version, platform, pass)`
fn cert(rows: &[(&str, &str, &str, bool)]) -> Certification {
    let rows: Vec<Value> = rows
        .iter()
        .map(|(client, version, platform, pass)| {
            crate::define::testing::evidence_row(client, version, platform, CAP, *pass)
        })
        .collect();
    Certification::from_value(&json!({"evidence": rows})).unwrap()
}

fn facts(version: Option<&str>, platform: &str, client: Option<&str>) -> ClientFacts {
    ClientFacts {
        client_version: version.map(str::to_owned),
        platform: platform.to_owned(),
        client_name: client.map(str::to_owned),
    }
}

fn verdict(granted: bool, reason: Option<Reason>, version: Option<&str>) -> Verdict {
    Verdict {
        granted,
        reason,
        version: version.map(str::to_owned),
    }
}

const P: &str = "example-cli";
const D: &str = "example-desktop";

#[test]
fn resolution_table() {
    use Reason::*;
    #[allow(clippy::type_complexity)]
    let cases: Vec<(
        &str,
        bool,
        Vec<(&str, &str, &str, bool)>,
        ClientFacts,
        Verdict,
    )> = vec![
        (
            "undeclared wins over passing evidence",
            false,
            vec![(P, "1.0.0", "linux-x64", true)],
            facts(Some("1.0.0"), "linux-x64", None),
            verdict(false, Some(Undeclared), None),
        ),
        (
            "no rows at all",
            true,
            vec![],
            facts(Some("1.0.0"), "linux-x64", None),
            verdict(false, Some(Unobserved), None),
        ),
        (
            "exact match passes",
            true,
            vec![(P, "1.0.0", "linux-x64", true)],
            facts(Some("1.0.0"), "linux-x64", None),
            verdict(true, None, Some("1.0.0")),
        ),
        (
            "applies forward to newer clients",
            true,
            vec![(P, "1.0.0", "linux-x64", true)],
            facts(Some("3.4.5"), "linux-x64", None),
            verdict(true, None, Some("1.0.0")),
        ),
        (
            "older than every row",
            true,
            vec![
                (P, "1.2.0", "linux-x64", true),
                (P, "1.1.0", "linux-x64", true),
            ],
            facts(Some("1.0.9"), "linux-x64", None),
            verdict(false, Some(OlderThanEvidence), Some("1.1.0")),
        ),
        (
            "another platform's capture is in reach",
            true,
            vec![(P, "1.0.0", "darwin-arm64", true)],
            facts(Some("1.0.0"), "linux-x64", None),
            verdict(true, None, Some("1.0.0")),
        ),
        (
            "this platform preferred over a newer other platform",
            true,
            vec![
                (P, "1.0.0", "linux-x64", false),
                (P, "1.1.0", "darwin-arm64", true),
            ],
            facts(Some("1.2.0"), "linux-x64", None),
            verdict(false, Some(RecordedFailure), Some("1.0.0")),
        ),
        // Version first: the only linux row is newer than the client, so platform
        // preference sees only the darwin row.
        (
            "version filter runs before platform",
            true,
            vec![
                (P, "1.3.0", "linux-x64", false),
                (P, "1.2.0", "darwin-arm64", true),
            ],
            facts(Some("1.2.3"), "linux-x64", None),
            verdict(true, None, Some("1.2.0")),
        ),
        (
            "a recorded loss wins a tie",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (P, "1.0.0", "darwin-arm64", false),
            ],
            facts(Some("1.0.0"), "win32-x64", None),
            verdict(false, Some(RecordedFailure), Some("1.0.0")),
        ),
        (
            "tie order does not matter",
            true,
            vec![
                (P, "1.0.0", "darwin-arm64", false),
                (P, "1.0.0", "linux-x64", true),
            ],
            facts(Some("1.0.0"), "win32-x64", None),
            verdict(false, Some(RecordedFailure), Some("1.0.0")),
        ),
        (
            "a regression applies forward",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (P, "1.5.0", "linux-x64", false),
            ],
            facts(Some("1.9.0"), "linux-x64", None),
            verdict(false, Some(RecordedFailure), Some("1.5.0")),
        ),
        (
            "until a later pass",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (P, "1.5.0", "linux-x64", false),
                (P, "1.7.0", "linux-x64", true),
            ],
            facts(Some("1.9.0"), "linux-x64", None),
            verdict(true, None, Some("1.7.0")),
        ),
        (
            "before the regression still passes",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (P, "1.5.0", "linux-x64", false),
            ],
            facts(Some("1.4.9"), "linux-x64", None),
            verdict(true, None, Some("1.0.0")),
        ),
        (
            "a prerelease is judged by its release triple",
            true,
            vec![(P, "1.3.0", "linux-x64", true)],
            facts(Some("1.3.0-rc.1"), "linux-x64", None),
            verdict(true, None, Some("1.3.0")),
        ),
        (
            "a prerelease row reaches its release",
            true,
            vec![(P, "1.3.0-beta.2", "linux-x64", true)],
            facts(Some("1.3.0"), "linux-x64", None),
            verdict(true, None, Some("1.3.0-beta.2")),
        ),
        (
            "an unreadable version reaches every row",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (P, "9.0.0", "linux-x64", false),
            ],
            facts(Some("unknown"), "linux-x64", None),
            verdict(false, Some(RecordedFailure), Some("9.0.0")),
        ),
        (
            "no version reaches every row",
            true,
            vec![(P, "9.0.0", "linux-x64", true)],
            facts(None, "linux-x64", None),
            verdict(true, None, Some("9.0.0")),
        ),
        (
            "a variant is judged by its own rows",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (D, "2.0.0", "linux-x64", true),
            ],
            facts(Some("2.1.0"), "linux-x64", Some(D)),
            verdict(true, None, Some("2.0.0")),
        ),
        (
            "the primary's rows never stand in for a variant",
            true,
            vec![(P, "1.0.0", "linux-x64", true)],
            facts(Some("1.0.0"), "linux-x64", Some(D)),
            verdict(false, Some(Unobserved), None),
        ),
        (
            "a variant's version line is its own",
            true,
            vec![
                (P, "1.0.0", "linux-x64", true),
                (D, "2.0.0", "linux-x64", true),
            ],
            facts(Some("1.5.0"), "linux-x64", Some(D)),
            verdict(false, Some(OlderThanEvidence), Some("2.0.0")),
        ),
        (
            "an undeclared client name is unobserved",
            true,
            vec![(P, "1.0.0", "linux-x64", true)],
            facts(Some("1.0.0"), "linux-x64", Some("stranger")),
            verdict(false, Some(Unobserved), None),
        ),
        (
            "the primary may be named explicitly",
            true,
            vec![(P, "1.0.0", "linux-x64", true)],
            facts(Some("1.0.0"), "linux-x64", Some(P)),
            verdict(true, None, Some("1.0.0")),
        ),
    ];
    for (name, declared, rows, facts, want) in cases {
        let got = capability_evidence(&manifest(declared), &cert(&rows), &facts, CAP);
        assert_eq!(got, want, "{name}");
        let compact = capability_evidence(&manifest(declared), &cert(&rows).table(), &facts, CAP);
        assert_eq!(compact, want, "{name}, from the compact table");
    }
}

#[test]
fn ties_keep_the_first_row_for_the_deciding_version_text() {
    let c = cert(&[
        (P, "1.3.0-rc.1", "linux-x64", true),
        (P, "1.3.0", "darwin-arm64", true),
    ]);
    let got = capability_evidence(
        &manifest(true),
        &c,
        &facts(Some("1.3.0"), "win32-x64", None),
        CAP,
    );
    assert_eq!(got.version.as_deref(), Some("1.3.0-rc.1"));
    let got = capability_evidence(
        &manifest(true),
        &c,
        &facts(Some("1.2.0"), "win32-x64", None),
        CAP,
    );
    assert_eq!(
        got,
        verdict(false, Some(Reason::OlderThanEvidence), Some("1.3.0-rc.1"))
    );
}

#[test]
fn effective_capabilities_is_the_granted_map_of_all_fourteen() {
    let m = Manifest::from_value(&json!({
        "id": "e", "displayName": "E", "client": {"command": "e"},
        "capabilities": {"guards": {"beforeWrite": true}, "delivery": {"nextTurn": true}}
    }))
    .unwrap();
    let rows = vec![
        crate::define::testing::evidence_row(
            "e",
            "1.0.0",
            "linux-x64",
            Capability::BeforeWrite,
            true,
        ),
        crate::define::testing::evidence_row(
            "e",
            "1.0.0",
            "linux-x64",
            Capability::NextTurn,
            false,
        ),
        crate::define::testing::evidence_row(
            "e",
            "1.0.0",
            "linux-x64",
            Capability::SessionStart,
            true,
        ),
    ];
    let c = Certification::from_value(&json!({"evidence": rows})).unwrap();
    let set = effective_capabilities(&m, &c, &facts(Some("1.0.0"), "linux-x64", None));
    let on: Vec<Capability> = set.enabled().collect();
    // nextTurn recorded a failure; sessionStart has evidence but is not declared.
    assert_eq!(on, vec![Capability::BeforeWrite]);
    assert!(
        effective_capabilities(&m, &c, &facts(Some("0.0.1"), "linux-x64", None))
            .enabled()
            .next()
            .is_none()
    );
    assert_eq!(
        explain_capabilities(&m, &c, &facts(None, "linux-x64", None)).len(),
        14
    );
}

#[test]
fn refusal_texts_name_the_evidence() {
    let f = facts(Some("1.0.9"), "linux-x64", None);
    let older = verdict(false, Some(Reason::OlderThanEvidence), Some("1.1.0"));
    assert_eq!(
        older.refusal_text(CAP, &f).unwrap(),
        "client 1.0.9 is older than 1.1.0, the first version acc verified for guards.beforeWrite"
    );
    let failed = verdict(false, Some(Reason::RecordedFailure), Some("1.5.0"));
    assert_eq!(
        failed.refusal_text(CAP, &f).unwrap(),
        "acc recorded that guards.beforeWrite stopped working in 1.5.0"
    );
    assert_eq!(
        verdict(true, None, Some("1.0.0")).refusal_text(CAP, &f),
        None
    );
}

#[test]
fn reasons_serialise_in_kebab_case() {
    let texts: Vec<String> = [
        Reason::Undeclared,
        Reason::Unobserved,
        Reason::OlderThanEvidence,
        Reason::RecordedFailure,
    ]
    .iter()
    .map(|r| {
        serde_json::to_value(r)
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned()
    })
    .collect();
    assert_eq!(
        texts,
        vec![
            "undeclared",
            "unobserved",
            "older-than-evidence",
            "recorded-failure"
        ]
    );
    for r in [Reason::Undeclared, Reason::OlderThanEvidence] {
        assert_eq!(serde_json::to_value(r).unwrap(), json!(r.as_str()));
    }
}
