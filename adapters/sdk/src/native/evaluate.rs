//! The runtime's native checks: the static version rule, the feature probe and the
//! per-session handshake. None of them takes a platform.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{NativeDelivery, ReasonCode};
use crate::certification::lexical::is_utc_timestamp;
use crate::error::{Problem, ProblemCode};
use crate::text_forms::{is_contract_id, is_sha256_hex};
use crate::version::version_order;

/// `^sha256:[0-9a-f]{64}$`
fn is_fingerprint(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(is_sha256_hex)
}

/// `^-(?:[a-z]|-[a-z][a-z0-9]*(?:-[a-z0-9]+)*)$`: `-x`, or `--` and a contract-id-shaped
/// word list.
fn is_launch_option(text: &str) -> bool {
    match text.strip_prefix("--") {
        Some(long) => is_contract_id(long),
        None => text.len() == 2 && text.starts_with('-') && text.as_bytes()[1].is_ascii_lowercase(),
    }
}
const LAUNCH_OPTION_MAX: usize = 40;

/// A live delivery mode a probe or handshake reports, in canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    LivePush,
    IdleWake,
    BusyQueue,
    ReplyRoute,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "livePush" => Some(Mode::LivePush),
            "idleWake" => Some(Mode::IdleWake),
            "busyQueue" => Some(Mode::BusyQueue),
            "replyRoute" => Some(Mode::ReplyRoute),
            _ => None,
        }
    }
}

/// The static rule's answer: `reason_code` is `None` when the version is admitted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionVerdict {
    pub reason_code: Option<ReasonCode>,
    pub minimum_version: Option<String>,
    pub protocol_contract: Option<String>,
}

impl VersionVerdict {
    fn unsupported() -> Self {
        Self {
            reason_code: Some(ReasonCode::NativeDeliveryUnsupported),
            minimum_version: None,
            protocol_contract: None,
        }
    }
}

/// The static version rule. `protocol` is the contract a probe or handshake reported; a
/// protocol other than the primary anchor's is judged against its own floor (its lowest
/// anchor), without `knownBad`, which names the primary client's versions.
pub fn evaluate_version_contract(
    contract: Option<&NativeDelivery>,
    primary: &str,
    client_version: Option<&str>,
    protocol: Option<&str>,
) -> VersionVerdict {
    let Some(contract) = contract else {
        return VersionVerdict::unsupported();
    };
    let Some(anchor) = contract.primary_anchor(primary) else {
        return VersionVerdict::unsupported();
    };
    let triple = client_version.and_then(version_order);
    if let Some(protocol) = protocol.filter(|p| *p != anchor.protocol_contract) {
        let Some(floor) = contract.floor_of(protocol) else {
            return VersionVerdict {
                reason_code: Some(ReasonCode::ProtocolMismatch),
                minimum_version: Some(contract.minimum.clone()),
                protocol_contract: Some(anchor.protocol_contract.clone()),
            };
        };
        let reason_code = match triple {
            None => Some(ReasonCode::VersionUnavailable),
            Some(t) if Some(t) < version_order(&floor.version) => {
                Some(ReasonCode::BelowMinimumVersion)
            }
            Some(_) => None,
        };
        return VersionVerdict {
            reason_code,
            minimum_version: Some(floor.version.clone()),
            protocol_contract: Some(protocol.to_owned()),
        };
    }
    let reason_code = match triple {
        None => Some(ReasonCode::VersionUnavailable),
        Some(t) if Some(t) < version_order(&contract.minimum) => {
            Some(ReasonCode::BelowMinimumVersion)
        }
        Some(_) if contract.is_known_bad(client_version.unwrap_or_default()) => {
            Some(ReasonCode::KnownBadVersion)
        }
        Some(_) => None,
    };
    VersionVerdict {
        reason_code,
        minimum_version: Some(contract.minimum.clone()),
        protocol_contract: Some(anchor.protocol_contract.clone()),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Eligibility {
    pub eligible: bool,
    pub reason_code: Option<ReasonCode>,
    pub minimum_version: Option<String>,
    pub protocol_contract: Option<String>,
    pub modes: Vec<Mode>,
}

/// The fields a probe and a handshake share, read after the shape check.
struct Reported {
    supported: bool,
    protocol_contract: Option<String>,
    modes: Vec<Mode>,
    reason_code: Option<ReasonCode>,
}

/// The serving version and the protocol worth passing to the static rule: the report's
/// own, when it is text / when some anchor names it.
fn serving<'a>(
    contract: Option<&NativeDelivery>,
    client_version: Option<&'a str>,
    report: Option<&'a Value>,
) -> (Option<&'a str>, Option<&'a str>) {
    let version = report
        .and_then(|r| r.get("clientVersion"))
        .and_then(Value::as_str)
        .or(client_version);
    let protocol = report
        .and_then(|r| r.get("protocolContract"))
        .and_then(Value::as_str)
        .filter(|p| contract.is_some_and(|c| c.anchors.iter().any(|a| a.protocol_contract == *p)));
    (version, protocol)
}

fn shape_error(code: ProblemCode, what: &str, field: &str, why: &str) -> Problem {
    Problem::new(code, what, field, format!("{what} {field} {why}"))
}

fn read_reported(
    obj: &Map<String, Value>,
    what: &str,
    code: ProblemCode,
    allowed: &[&str],
) -> Result<Reported, Problem> {
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(Problem::new(
            code,
            what,
            k.as_str(),
            format!("unknown {what} field {k}"),
        ));
    }
    let supported = obj
        .get("supported")
        .and_then(Value::as_bool)
        .ok_or_else(|| shape_error(code, what, "supported", "must be a boolean"))?;
    let nullable_text = |k: &str| match obj.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(shape_error(code, what, k, "must be a string or null")),
    };
    if nullable_text("clientVersion")?.is_some_and(|v| v.is_empty()) {
        return Err(shape_error(
            code,
            what,
            "clientVersion",
            "must not be empty",
        ));
    }
    let protocol_contract = nullable_text("protocolContract")?;
    if protocol_contract
        .as_deref()
        .is_some_and(|p| !is_contract_id(p))
    {
        return Err(shape_error(
            code,
            what,
            "protocolContract",
            "must match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$",
        ));
    }
    let mut modes = Vec::new();
    match obj.get("modes") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                let mode = item.as_str().and_then(Mode::parse).ok_or_else(|| {
                    shape_error(
                        code,
                        what,
                        "modes",
                        "must hold only livePush, idleWake, busyQueue or replyRoute",
                    )
                })?;
                if modes.contains(&mode) {
                    return Err(shape_error(code, what, "modes", "must not repeat a mode"));
                }
                modes.push(mode);
            }
        }
        Some(_) => return Err(shape_error(code, what, "modes", "must be an array")),
    }
    modes.sort();
    let reason_code = match nullable_text("reasonCode")? {
        None => None,
        Some(text) => Some(ReasonCode::parse(&text).ok_or_else(|| {
            shape_error(
                code,
                what,
                "reasonCode",
                "must be null or a listed reason code",
            )
        })?),
    };
    Ok(Reported {
        supported,
        protocol_contract,
        modes,
        reason_code,
    })
}

const PROBE_FIELDS: [&str; 6] = [
    "supported",
    "clientVersion",
    "protocolContract",
    "executableFingerprint",
    "modes",
    "reasonCode",
];

/// Whether live delivery may be offered, given the machine's current read-only feature
/// probe. A malformed probe is an error, not a refusal: it is the adapter's bug.
pub fn evaluate_native_eligibility(
    contract: Option<&NativeDelivery>,
    primary: &str,
    client_version: Option<&str>,
    probe: Option<&Value>,
) -> Result<Eligibility, Problem> {
    let (version, protocol) = serving(contract, client_version, probe);
    let rule = evaluate_version_contract(contract, primary, version, protocol);
    let refuse = |reason: ReasonCode| Eligibility {
        eligible: false,
        reason_code: Some(reason),
        minimum_version: rule.minimum_version.clone(),
        protocol_contract: rule.protocol_contract.clone(),
        modes: Vec::new(),
    };
    if let Some(reason) = rule.reason_code {
        return Ok(refuse(reason));
    }
    let Some(probe) = probe.filter(|p| !p.is_null()) else {
        return Ok(refuse(ReasonCode::FeatureProbeFailed));
    };
    let code = ProblemCode::ProbeMalformed;
    let obj = probe
        .as_object()
        .ok_or_else(|| Problem::new(code, "probe", "", "probe must be an object"))?;
    let reported = read_reported(obj, "probe", code, &PROBE_FIELDS)?;
    match obj.get("executableFingerprint") {
        None | Some(Value::Null) => {}
        Some(Value::String(f)) if is_fingerprint(f) => {}
        Some(_) => {
            return Err(shape_error(
                code,
                "probe",
                "executableFingerprint",
                "must be sha256:<64 hex> or null",
            ));
        }
    }
    if !reported.supported {
        return Ok(refuse(
            reported
                .reason_code
                .unwrap_or(ReasonCode::FeatureProbeFailed),
        ));
    }
    if reported.protocol_contract != rule.protocol_contract {
        return Ok(refuse(ReasonCode::ProtocolMismatch));
    }
    if !reported.modes.contains(&Mode::LivePush) {
        return Ok(refuse(ReasonCode::FeatureProbeFailed));
    }
    Ok(Eligibility {
        eligible: true,
        reason_code: None,
        minimum_version: rule.minimum_version,
        protocol_contract: rule.protocol_contract,
        modes: reported.modes,
    })
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandshakeVerdict {
    pub ok: bool,
    pub reason_code: Option<ReasonCode>,
    /// The serving version on success; `None` on refusal.
    pub client_version: Option<String>,
    pub protocol_contract: Option<String>,
    pub modes: Vec<Mode>,
    pub opaque_endpoint_ref: Option<String>,
    pub lease_until: Option<String>,
    /// The bare option that made the client refuse, echoed for doctor and the sender.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch_option: Option<String>,
}

const HANDSHAKE_FIELDS: [&str; 8] = [
    "supported",
    "clientVersion",
    "protocolContract",
    "modes",
    "opaqueEndpointRef",
    "leaseUntil",
    "reasonCode",
    "launchOption",
];

/// Whether a session's handshake binds it for live delivery.
pub fn validate_native_handshake(
    contract: Option<&NativeDelivery>,
    primary: &str,
    client_version: Option<&str>,
    handshake: Option<&Value>,
) -> Result<HandshakeVerdict, Problem> {
    let (version, protocol) = serving(contract, client_version, handshake);
    let rule = evaluate_version_contract(contract, primary, version, protocol);
    let refuse = |reason: ReasonCode, launch_option: Option<String>| HandshakeVerdict {
        ok: false,
        reason_code: Some(reason),
        client_version: None,
        protocol_contract: rule.protocol_contract.clone(),
        modes: Vec::new(),
        opaque_endpoint_ref: None,
        lease_until: None,
        launch_option,
    };
    if let Some(reason) = rule.reason_code {
        return Ok(refuse(reason, None));
    }
    let Some(handshake) = handshake.filter(|h| !h.is_null()) else {
        return Ok(refuse(ReasonCode::HandshakeFailed, None));
    };
    let code = ProblemCode::HandshakeMalformed;
    let what = "handshake";
    let obj = handshake
        .as_object()
        .ok_or_else(|| Problem::new(code, what, "", "handshake must be an object"))?;
    let reported = read_reported(obj, what, code, &HANDSHAKE_FIELDS)?;
    let endpoint = obj.get("opaqueEndpointRef").filter(|v| !v.is_null());
    let lease = obj.get("leaseUntil").filter(|v| !v.is_null());
    let launch_option = obj.get("launchOption").filter(|v| !v.is_null());
    if reported.supported {
        let endpoint_ok = endpoint
            .and_then(Value::as_str)
            .is_some_and(|e| !e.trim().is_empty());
        if !endpoint_ok {
            return Err(shape_error(
                code,
                what,
                "opaqueEndpointRef",
                "must be non-empty text when supported",
            ));
        }
        if !lease.and_then(Value::as_str).is_some_and(is_utc_timestamp) {
            return Err(shape_error(
                code,
                what,
                "leaseUntil",
                "must be a UTC timestamp ending in Z when supported",
            ));
        }
        if launch_option.is_some() {
            return Err(shape_error(
                code,
                what,
                "launchOption",
                "is allowed only on a refused handshake",
            ));
        }
    } else {
        if endpoint.is_some() {
            return Err(shape_error(
                code,
                what,
                "opaqueEndpointRef",
                "must be null when unsupported",
            ));
        }
        if lease.is_some() {
            return Err(shape_error(
                code,
                what,
                "leaseUntil",
                "must be null when unsupported",
            ));
        }
    }
    let launch_option = match launch_option {
        None => None,
        Some(v) => {
            let text = v.as_str().filter(|t| t.len() <= LAUNCH_OPTION_MAX && is_launch_option(t)).ok_or_else(|| {
                shape_error(code, what, "launchOption", "must be a bare command-line option such as --search (at most 40 characters)")
            })?;
            Some(text.to_owned())
        }
    };
    if !reported.supported {
        return Ok(refuse(
            reported.reason_code.unwrap_or(ReasonCode::HandshakeFailed),
            launch_option,
        ));
    }
    if reported.protocol_contract != rule.protocol_contract {
        return Ok(refuse(ReasonCode::ProtocolMismatch, None));
    }
    if !reported.modes.contains(&Mode::LivePush) {
        return Ok(refuse(ReasonCode::HandshakeFailed, None));
    }
    Ok(HandshakeVerdict {
        ok: true,
        reason_code: None,
        client_version: version.map(str::to_owned),
        protocol_contract: rule.protocol_contract,
        modes: reported.modes,
        opaque_endpoint_ref: endpoint.and_then(Value::as_str).map(str::to_owned),
        lease_until: lease.and_then(Value::as_str).map(str::to_owned),
        launch_option: None,
    })
}

#[cfg(test)]
mod tests {
    use super::{is_fingerprint, is_launch_option};

    #[test]
    fn launch_options_are_one_letter_or_a_long_word_list() {
        for (text, ok) in [
            ("-s", true),
            ("--search", true),
            ("--no-sandbox", true),
            ("--v2-inbox", true),
            ("-", false),
            ("--", false),
            ("-S", false),
            ("-ab", false),
            ("-1", false),
            ("--2fa", false),
            ("--search-", false),
            ("--no--sandbox", false),
            ("---search", false),
            ("--Search", false),
            ("--search=x", false),
            ("search", false),
            ("--search\n", false),
        ] {
            assert_eq!(is_launch_option(text), ok, "{text:?}");
        }
    }

    #[test]
    fn fingerprints_are_prefixed_lowercase_sha256() {
        let hex = "0123456789abcdef".repeat(4);
        assert!(is_fingerprint(&format!("sha256:{hex}")));
        assert!(!is_fingerprint(&hex));
        assert!(!is_fingerprint(&format!("SHA256:{hex}")));
        assert!(!is_fingerprint(&format!("sha256:{}", hex.to_uppercase())));
        assert!(!is_fingerprint(&format!("sha256:{hex}0")));
        assert!(!is_fingerprint("sha256:"));
    }
}
