//! Validation of a manifest's `nativeDelivery`, in the order CERTIFICATION.md §3.1 gives.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{ActivationKind, Anchor, KnownBad, NativeDelivery, OfferKind, PolicySource};
use crate::capabilities::Capability;
use crate::certification::EvidenceRows;
use crate::error::{MANIFEST_FILE, Problem, ProblemCode};
use crate::text_forms::is_contract_id;
use crate::version::{is_stable, version_order};

const FIELDS: [&str; 6] = [
    "minimum",
    "anchors",
    "knownBad",
    "activationKinds",
    "policySource",
    "offerKind",
];
const REQUIRED: [&str; 4] = ["minimum", "anchors", "knownBad", "activationKinds"];
const KNOWN_BAD_REASON: &str = "known_bad_version";

struct Checks {
    problems: Vec<Problem>,
}

impl Checks {
    fn push(&mut self, code: ProblemCode, field: impl AsRef<str>, message: impl Into<String>) {
        let field = field.as_ref();
        let path = if field.is_empty() {
            "nativeDelivery".to_owned()
        } else {
            format!("nativeDelivery.{field}")
        };
        self.problems
            .push(Problem::new(code, MANIFEST_FILE, path, message));
    }
}

/// Validates `nativeDelivery` against the evidence. `clients` is the primary followed by
/// every declared variant.
pub fn validate_native_delivery<E: EvidenceRows + ?Sized>(
    value: &Value,
    certification: &E,
    primary: &str,
    clients: &[&str],
) -> Result<NativeDelivery, Vec<Problem>> {
    let mut c = Checks {
        problems: Vec::new(),
    };
    if value.get("minimumByPlatform").is_some() {
        c.push(
            ProblemCode::NativeMinimumByPlatform,
            "minimumByPlatform",
            "nativeDelivery.minimumByPlatform is no longer declared; a capture's minimum applies on every platform, \
             so declare nativeDelivery.minimum instead (docs/design/2026-09-26-native-delivery-across-platforms.md)",
        );
        return Err(c.problems);
    }
    let Some(obj) = value.as_object() else {
        c.push(
            ProblemCode::NativeNotObject,
            "",
            "nativeDelivery must be an object",
        );
        return Err(c.problems);
    };
    for k in obj.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        c.push(
            ProblemCode::NativeUnknownField,
            k,
            format!("unknown nativeDelivery field {k}"),
        );
    }
    for k in REQUIRED.iter().filter(|k| !obj.contains_key(**k)) {
        c.push(
            ProblemCode::NativeMissingField,
            k,
            format!("nativeDelivery requires {k}"),
        );
    }
    let policy_source = match obj.get("policySource").map(Value::as_str) {
        None | Some(Some("installation-record")) => Some(PolicySource::InstallationRecord),
        Some(_) => {
            c.push(
                ProblemCode::NativePolicySource,
                "policySource",
                "nativeDelivery.policySource must be installation-record",
            );
            None
        }
    };
    let offer_kind = match obj.get("offerKind").map(Value::as_str) {
        None | Some(Some("message")) => Some(OfferKind::Message),
        Some(Some("wake")) => Some(OfferKind::Wake),
        Some(_) => {
            c.push(
                ProblemCode::NativeOfferKind,
                "offerKind",
                "nativeDelivery.offerKind must be message or wake",
            );
            None
        }
    };
    let minimum = obj
        .get("minimum")
        .and_then(Value::as_str)
        .filter(|m| is_stable(m));
    if obj.contains_key("minimum") && minimum.is_none() {
        c.push(
            ProblemCode::NativeMinimumNotStable,
            "minimum",
            "nativeDelivery.minimum must be a stable version X.Y.Z (a build suffix +... is allowed, a prerelease is not)",
        );
    }
    let anchors = check_anchors(&mut c, obj, certification, primary, clients, minimum);
    let known_bad = check_known_bad(&mut c, obj.get("knownBad"));
    let activation_kinds = check_activation_kinds(&mut c, obj.get("activationKinds"));
    match (
        minimum,
        anchors,
        known_bad,
        activation_kinds,
        policy_source,
        offer_kind,
    ) {
        (
            Some(minimum),
            Some(anchors),
            Some(known_bad),
            Some(activation_kinds),
            Some(policy_source),
            Some(offer_kind),
        ) if c.problems.is_empty() => Ok(NativeDelivery {
            minimum: minimum.to_owned(),
            anchors,
            known_bad,
            activation_kinds,
            policy_source,
            offer_kind,
        }),
        _ => Err(c.problems),
    }
}

fn check_anchors<E: EvidenceRows + ?Sized>(
    c: &mut Checks,
    obj: &Map<String, Value>,
    certification: &E,
    primary: &str,
    clients: &[&str],
    minimum: Option<&str>,
) -> Option<Vec<Anchor>> {
    let entries = match obj.get("anchors").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => list,
        _ => {
            if obj.contains_key("anchors") {
                c.push(
                    ProblemCode::NativeAnchorsEmpty,
                    "anchors",
                    "nativeDelivery.anchors must be a non-empty array",
                );
            }
            return None;
        }
    };
    let before = c.problems.len();
    let mut anchors = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = format!("anchors[{i}]");
        let Some(a) = entry.as_object() else {
            c.push(
                ProblemCode::NativeAnchorNotObject,
                &field,
                format!("nativeDelivery anchor {i} must be an object"),
            );
            continue;
        };
        if a.contains_key("platform") {
            c.push(
                ProblemCode::NativeAnchorPlatform,
                format!("{field}.platform"),
                format!(
                    "nativeDelivery anchor {i} names a platform; an anchor applies on every platform, and where its \
                     capture was taken is provenance"
                ),
            );
            continue;
        }
        let mut closed = true;
        for k in a
            .keys()
            .filter(|k| !matches!(k.as_str(), "version" | "protocolContract" | "client"))
        {
            closed = false;
            c.push(
                ProblemCode::NativeAnchorUnknownField,
                format!("{field}.{k}"),
                format!("nativeDelivery anchor {i} has unknown field {k}"),
            );
        }
        for k in ["version", "protocolContract"]
            .iter()
            .filter(|k| !a.contains_key(**k))
        {
            closed = false;
            c.push(
                ProblemCode::NativeAnchorMissingField,
                format!("{field}.{k}"),
                format!("nativeDelivery anchor {i} requires {k}"),
            );
        }
        if !closed {
            continue;
        }
        let Some(version) = a
            .get("version")
            .and_then(Value::as_str)
            .filter(|v| is_stable(v))
        else {
            c.push(
                ProblemCode::NativeAnchorVersion,
                format!("{field}.version"),
                format!("nativeDelivery anchor {i} version must be a stable version"),
            );
            continue;
        };
        let owner = match a.get("client") {
            None => primary,
            Some(Value::String(name)) if clients.contains(&name.as_str()) => name.as_str(),
            Some(other) => {
                let name = other
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| other.to_string());
                c.push(
                    ProblemCode::NativeAnchorUndeclaredClient,
                    format!("{field}.client"),
                    format!("nativeDelivery anchor {i} names client {name}, which the adapter does not declare"),
                );
                continue;
            }
        };
        if owner == primary
            && let Some(min) = minimum
            && version_order(version) < version_order(min)
        {
            c.push(
                ProblemCode::NativeAnchorBelowMinimum,
                format!("{field}.version"),
                format!("nativeDelivery anchor {version} is below the minimum {min}: the minimum must be the first passing capture"),
            );
            continue;
        }
        let Some(protocol) = a
            .get("protocolContract")
            .and_then(Value::as_str)
            .filter(|p| is_contract_id(p))
        else {
            c.push(
                ProblemCode::NativeAnchorProtocol,
                format!("{field}.protocolContract"),
                format!("nativeDelivery anchor {i} protocolContract must match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$"),
            );
            continue;
        };
        let evidenced = certification
            .rows_of(owner, Capability::LivePush.key())
            .any(|r| r.passed && r.version == version);
        if !evidenced {
            c.push(
                ProblemCode::NativeAnchorUnevidenced,
                format!("{field}.version"),
                format!(
                    "nativeDelivery anchor {version} has no passing delivery.livePush certification"
                ),
            );
            continue;
        }
        anchors.push(Anchor {
            version: version.to_owned(),
            protocol_contract: protocol.to_owned(),
            client: (owner != primary).then(|| owner.to_owned()),
        });
    }
    let mut owners: BTreeMap<&str, &str> = BTreeMap::new();
    for a in &anchors {
        let owner = a.owner(primary);
        match owners.get(a.protocol_contract.as_str()) {
            Some(first) if *first != owner => c.push(
                ProblemCode::NativeProtocolTwoOwners,
                "anchors",
                format!(
                    "nativeDelivery protocol {} is anchored for both {first} and {owner}",
                    a.protocol_contract
                ),
            ),
            Some(_) => {}
            None => {
                owners.insert(&a.protocol_contract, owner);
            }
        }
    }
    if let Some(min) = minimum
        && c.problems.len() == before
    {
        if !anchors
            .iter()
            .any(|a| a.owner(primary) == primary && a.version == min)
        {
            c.push(
                ProblemCode::NativeMinimumNotAnchor,
                "minimum",
                format!("nativeDelivery minimum {min} must be the first passing capture: no anchor matches it"),
            );
        } else if let Some(earlier) = certification
            .rows_of(primary, Capability::LivePush.key())
            .filter(|r| r.passed && version_order(r.version) < version_order(min))
            .map(|r| r.version)
            .min_by_key(|v| version_order(v))
        {
            c.push(
                ProblemCode::NativeMinimumNotAnchor,
                "minimum",
                format!("nativeDelivery minimum {min} must be the first passing capture: delivery.livePush passed at {earlier}"),
            );
        }
    }
    (c.problems.len() == before).then_some(anchors)
}

fn check_known_bad(c: &mut Checks, value: Option<&Value>) -> Option<Vec<KnownBad>> {
    let entries = match value {
        None => return None,
        Some(Value::Array(entries)) => entries,
        Some(_) => {
            c.push(
                ProblemCode::NativeKnownBadInvalid,
                "knownBad",
                "nativeDelivery.knownBad must be an array",
            );
            return None;
        }
    };
    let before = c.problems.len();
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = format!("knownBad[{i}]");
        match read_known_bad(entry) {
            Ok(k) => out.push(k),
            Err(why) => c.push(
                ProblemCode::NativeKnownBadInvalid,
                field,
                format!("nativeDelivery knownBad {i} {why}"),
            ),
        }
    }
    (c.problems.len() == before).then_some(out)
}

fn read_known_bad(entry: &Value) -> Result<KnownBad, String> {
    let obj = entry.as_object().ok_or("must be an object")?;
    let exact = obj.contains_key("version");
    let allowed: &[&str] = if exact {
        &["version", "reasonCode"]
    } else {
        &["from", "to", "reasonCode"]
    };
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("has unknown field {k}"));
    }
    if obj.get("reasonCode").and_then(Value::as_str) != Some(KNOWN_BAD_REASON) {
        return Err(format!("reasonCode must be {KNOWN_BAD_REASON}"));
    }
    let stable = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .filter(|v| is_stable(v))
            .map(str::to_owned)
            .ok_or(format!("{k} must be a stable version"))
    };
    if exact {
        return Ok(KnownBad::Exact {
            version: stable("version")?,
        });
    }
    let (from, to) = (stable("from")?, stable("to")?);
    if version_order(&from) > version_order(&to) {
        return Err(format!("from {from} is above to {to}"));
    }
    Ok(KnownBad::Interval { from, to })
}

fn check_activation_kinds(c: &mut Checks, value: Option<&Value>) -> Option<Vec<ActivationKind>> {
    let value = value?;
    let message = "nativeDelivery.activationKinds must be a non-empty list of distinct native-config or native-service";
    let Some(items) = value.as_array().filter(|l| !l.is_empty()) else {
        c.push(
            ProblemCode::NativeActivationKinds,
            "activationKinds",
            message,
        );
        return None;
    };
    let mut kinds = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str() {
            Some("shell-bootstrap") => {
                c.push(
                    ProblemCode::NativeActivationKinds,
                    format!("activationKinds[{i}]"),
                    "nativeDelivery.activationKinds: shell-bootstrap can no longer be planned (old install records of one stay readable)",
                );
                return None;
            }
            Some(text) => match ActivationKind::parse(text) {
                Some(kind) if !kinds.contains(&kind) => kinds.push(kind),
                _ => {
                    c.push(
                        ProblemCode::NativeActivationKinds,
                        format!("activationKinds[{i}]"),
                        message,
                    );
                    return None;
                }
            },
            None => {
                c.push(
                    ProblemCode::NativeActivationKinds,
                    format!("activationKinds[{i}]"),
                    message,
                );
                return None;
            }
        }
    }
    Some(kinds)
}
