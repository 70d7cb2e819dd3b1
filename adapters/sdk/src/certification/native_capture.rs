//! The native capture fixture (`"capability": "native_delivery"`): the record of one live
//! delivery experiment, every branch of which either shows its passing value or says
//! `unobserved`.

use serde_json::Value;

use super::lexical::{is_observed_at, is_sha256_hex, text_list};
use crate::error::{Problem, ProblemCode};
use crate::text_forms::{is_joined_words, is_lower_alnum};

/// The fixture `capability` of a native capture.
pub const NATIVE_DELIVERY: &str = "native_delivery";
/// A transport-only capture, which never certifies the installed product route.
pub const NATIVE_DELIVERY_TRANSPORT: &str = "native_delivery_transport";

pub const UNOBSERVED: &str = "unobserved";
const INSTALLED_HOOKS: &str = "ordinary-command-with-installed-hooks";
const LAUNCH_MODES: [&str; 4] = [
    "ordinary-command-with-install-time-bootstrap",
    INSTALLED_HOOKS,
    "manual-vendor-invocation",
    "no-client-launched",
];
const PLATFORMS: [&str; 5] = [
    "darwin-arm64",
    "darwin-x64",
    "linux-arm64",
    "linux-x64",
    "win32-x64",
];
const REQUIRED: [&str; 15] = [
    "client",
    "version",
    "platform",
    "observedAt",
    "capability",
    "result",
    "fixture",
    "launchMode",
    "protocolContract",
    "idle",
    "busy",
    "reply",
    "duplicate",
    "fallback",
    "limitations",
];
/// Each branch with the values that count as passing it.
const BRANCHES: [(&str, &[&str]); 5] = [
    ("idle", &["offered"]),
    (
        "busy",
        &[
            "queued_after_turn",
            "rejected_busy",
            "presented_between_tool_calls",
        ],
    ),
    ("reply", &["routed"]),
    ("duplicate", &["same_message_id"]),
    ("fallback", &["queued"]),
];

/// `^[a-z0-9]+(?:[.-][a-z0-9]+)*$`
fn is_fixture_name(text: &str) -> bool {
    is_joined_words(text, is_lower_alnum, b".-")
}

/// The selected provenance record's product evidence, as far as it could be read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProductEvidence<'a> {
    /// The record names none.
    Absent,
    /// The record names one whose digest or JSON failed (reported where that was found).
    Unusable,
    /// Digest-checked and parsed.
    Parsed(&'a Value),
}

/// Checks a native capture against its own rules and, for a passing installed-hooks
/// capture, against its product evidence.
pub fn check_native_capture(
    file: &str,
    capture: &Value,
    product_evidence: ProductEvidence<'_>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut push = |field: &str, message: String| {
        problems.push(Problem::new(
            ProblemCode::NativeCaptureInvalid,
            file,
            field,
            message,
        ));
    };
    let Some(obj) = capture.as_object() else {
        push("", "a native capture must be an object".into());
        return problems;
    };
    for k in obj
        .keys()
        .filter(|k| !REQUIRED.contains(&k.as_str()) && k.as_str() != "packageSha256")
    {
        push(k, format!("unknown native capture field {k}"));
    }
    for k in REQUIRED.iter().filter(|k| !obj.contains_key(**k)) {
        push(k, format!("native capture requires {k}"));
    }
    let text = |k: &str| obj.get(k).and_then(Value::as_str);
    if text("version").is_some_and(|v| !crate::version::is_strict_triple(v)) {
        push(
            "version",
            "native capture version must be a stable X.Y.Z with no suffix".into(),
        );
    }
    if text("platform").is_some_and(|p| !PLATFORMS.contains(&p)) {
        push(
            "platform",
            format!(
                "native capture platform must be one of {}",
                PLATFORMS.join(", ")
            ),
        );
    }
    if text("observedAt").is_some_and(|t| !is_observed_at(t)) {
        push(
            "observedAt",
            "native capture observedAt must be an exact ISO date or timestamp".into(),
        );
    }
    if text("fixture").is_some_and(|f| !is_fixture_name(f)) {
        push(
            "fixture",
            "native capture fixture must match ^[a-z0-9]+(?:[.-][a-z0-9]+)*$".into(),
        );
    }
    let launch_mode = text("launchMode");
    if launch_mode.is_some_and(|m| !LAUNCH_MODES.contains(&m)) {
        push(
            "launchMode",
            format!(
                "native capture launchMode must be one of {}",
                LAUNCH_MODES.join(", ")
            ),
        );
    }
    if obj.contains_key("protocolContract")
        && text("protocolContract").is_none_or(|c| c.trim().is_empty())
    {
        push(
            "protocolContract",
            "native capture protocolContract must be text".into(),
        );
    }
    let mut every_branch_passes = true;
    for (branch, passing) in BRANCHES {
        let Some(value) = obj.get(branch) else {
            every_branch_passes = false;
            continue;
        };
        match value.as_str() {
            Some(v) if passing.contains(&v) => {}
            Some(UNOBSERVED) => every_branch_passes = false,
            _ => {
                every_branch_passes = false;
                push(
                    branch,
                    format!(
                        "native capture {branch} must be {} or {UNOBSERVED}",
                        passing.join(" or ")
                    ),
                );
            }
        }
    }
    if obj.contains_key("limitations")
        && text_list(obj.get("limitations")).is_none_or(|l| l.is_empty())
    {
        push(
            "limitations",
            "native capture limitations must be a non-empty array of text".into(),
        );
    }
    let result = text("result");
    if result.is_some_and(|r| r != "pass" && r != "fail") {
        push(
            "result",
            "native capture result must be pass or fail".into(),
        );
    }
    let passed = result == Some("pass");
    if passed && !launch_mode.is_some_and(|m| m.starts_with("ordinary-")) {
        push(
            "launchMode",
            "a passing native capture needs an ordinary-command launch mode".into(),
        );
    }
    if passed && !every_branch_passes {
        push(
            "result",
            "a passing native capture needs the passing value on every branch".into(),
        );
    }
    let package_sha = text("packageSha256");
    if obj.contains_key("packageSha256") && !package_sha.is_some_and(is_sha256_hex) {
        push(
            "packageSha256",
            "native capture packageSha256 must be 64 lowercase hex digits".into(),
        );
    }
    if launch_mode == Some(INSTALLED_HOOKS) {
        if package_sha.is_none() {
            push(
                "packageSha256",
                "an installed-hooks capture must name the packageSha256 of the client it ran"
                    .into(),
            );
        }
        if passed {
            match product_evidence {
                ProductEvidence::Absent => {
                    push("", "a passing installed-hooks capture needs productEvidence on its provenance record".into())
                }
                ProductEvidence::Unusable => {}
                ProductEvidence::Parsed(product) => {
                    let expected = [
                        ("phase", Some(Value::from("product"))),
                        ("source", Some(Value::from("real-client-capture"))),
                        ("failedCount", Some(Value::from(0))),
                        ("clientVersion", obj.get("version").cloned()),
                        ("platform", obj.get("platform").cloned()),
                        ("client", obj.get("client").cloned()),
                        ("packageSha256", obj.get("packageSha256").cloned()),
                    ];
                    for (key, want) in expected {
                        if product.get(key) != want.as_ref() {
                            push("", format!("product evidence {key} does not match the capture"));
                        }
                    }
                }
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn capture() -> Value {
        json!({
            "client": "example-cli", "version": "2.1.282", "platform": "linux-x64",
            "observedAt": "2026-12-02T10:00:00.000Z", "capability": "native_delivery", "result": "pass",
            "fixture": "example-2.1.282", "launchMode": "ordinary-command-with-installed-hooks",
            "protocolContract": "example-inbox-v1", "idle": "offered", "busy": "queued_after_turn",
            "reply": "routed", "duplicate": "same_message_id", "fallback": "queued",
            "limitations": ["only linux"], "packageSha256": "a".repeat(64)
        })
    }

    fn product() -> Value {
        json!({"phase": "product", "source": "real-client-capture", "failedCount": 0, "clientVersion": "2.1.282",
               "platform": "linux-x64", "client": "example-cli", "packageSha256": "a".repeat(64)})
    }

    fn edit(key: &str, value: Value) -> Value {
        let mut c = capture();
        c[key] = value;
        c
    }

    #[test]
    fn fixture_names_are_lowercase_words_joined_by_dots_or_dashes() {
        for (text, ok) in [
            ("example-2.1.282", true),
            ("a", true),
            ("2", true),
            ("a.b-c.d", true),
            ("", false),
            ("-a", false),
            ("a-", false),
            ("a.", false),
            ("a..b", false),
            ("a-.b", false),
            ("Example", false),
            ("a_b", false),
            ("a/b", false),
        ] {
            assert_eq!(is_fixture_name(text), ok, "{text:?}");
        }
    }

    #[test]
    fn a_complete_passing_capture_with_matching_product_evidence_is_valid() {
        assert_eq!(
            check_native_capture("f.json", &capture(), ProductEvidence::Parsed(&product())),
            vec![]
        );
    }

    #[test]
    fn each_rule_refuses() {
        let mut no_sha = capture();
        no_sha.as_object_mut().unwrap().remove("packageSha256");
        let cases: Vec<(Value, &str, &str)> = vec![
            (
                edit("version", json!("2.1.282-rc.1")),
                "version",
                "stable X.Y.Z",
            ),
            (
                edit("platform", json!("win32-arm64")),
                "platform",
                "platform must be one of",
            ),
            (
                edit("fixture", json!("Example_1")),
                "fixture",
                "fixture must match",
            ),
            (
                edit("launchMode", json!("magic")),
                "launchMode",
                "launchMode must be one of",
            ),
            (
                edit("launchMode", json!("manual-vendor-invocation")),
                "launchMode",
                "ordinary-command launch mode",
            ),
            (
                edit("idle", json!("seen")),
                "idle",
                "idle must be offered or unobserved",
            ),
            (
                edit("reply", json!("unobserved")),
                "result",
                "passing value on every branch",
            ),
            (edit("limitations", json!([])), "limitations", "non-empty"),
            (
                edit("extra", json!(1)),
                "extra",
                "unknown native capture field extra",
            ),
            (no_sha, "packageSha256", "must name the packageSha256"),
        ];
        for (input, field, fragment) in cases {
            let problems =
                check_native_capture("f.json", &input, ProductEvidence::Parsed(&product()));
            assert!(
                problems
                    .iter()
                    .any(|p| p.field == field && p.message.contains(fragment)),
                "{field}: {fragment}: {problems:?}"
            );
        }
    }

    #[test]
    fn presented_between_tool_calls_is_a_passing_busy_value() {
        let problems = check_native_capture(
            "f.json",
            &edit("busy", json!("presented_between_tool_calls")),
            ProductEvidence::Parsed(&product()),
        );
        assert_eq!(problems, vec![]);
    }

    #[test]
    fn a_failed_capture_may_leave_branches_unobserved_and_needs_no_product_evidence() {
        let mut c = capture();
        for b in ["idle", "busy", "reply", "duplicate", "fallback"] {
            c[b] = json!("unobserved");
        }
        c["result"] = json!("fail");
        assert_eq!(
            check_native_capture("f.json", &c, ProductEvidence::Absent),
            vec![]
        );
    }

    #[test]
    fn installed_hooks_pass_needs_matching_product_evidence() {
        let problems = check_native_capture("f.json", &capture(), ProductEvidence::Absent);
        assert!(
            problems
                .iter()
                .any(|p| p.message.contains("needs productEvidence"))
        );
        assert_eq!(
            check_native_capture("f.json", &capture(), ProductEvidence::Unusable),
            vec![]
        );
        for key in [
            "phase",
            "source",
            "failedCount",
            "clientVersion",
            "platform",
            "client",
            "packageSha256",
        ] {
            let mut p = product();
            p[key] = json!("other");
            let problems = check_native_capture("f.json", &capture(), ProductEvidence::Parsed(&p));
            assert_eq!(problems.len(), 1, "{key}");
            assert_eq!(
                problems[0].message,
                format!("product evidence {key} does not match the capture")
            );
        }
    }
}
