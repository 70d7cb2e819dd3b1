//! The native delivery contract: without one, live delivery is refused with exactly
//! `native_delivery_unsupported` and nothing else; with one, every anchor is eligible on a
//! probe that reports it, a foreign protocol and an older client are refused, and the
//! adapter's own read-only probe answers in the closed shape.

use acc_sdk::define::Adapter;
use acc_sdk::error::MANIFEST_FILE;
use acc_sdk::native::{Eligibility, ReasonCode};
use serde_json::{Value, json};

use super::sandbox;
use crate::check::{Outcome, Problems};
use crate::context::CheckContext;

/// A version newer than any client, and a protocol no anchor names.
pub const FUTURE_VERSION: &str = "999.0.0";
pub const FOREIGN_PROTOCOL: &str = "any-v1";
pub const ANCIENT_VERSION: &str = "0.0.1";

fn probe(version: &str, protocol: &str) -> Value {
    json!({"supported": true, "clientVersion": version, "protocolContract": protocol, "modes": ["livePush"]})
}

fn unsupported() -> Eligibility {
    Eligibility {
        eligible: false,
        reason_code: Some(ReasonCode::NativeDeliveryUnsupported),
        minimum_version: None,
        protocol_contract: None,
        modes: Vec::new(),
    }
}

pub fn native_contract(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let id = adapter.id();
    let mut problems = Problems::new(Some(ctx.adapter_file(id, MANIFEST_FILE)));
    let Some(contract) = adapter.native_delivery() else {
        for (version, probe) in [
            (None, None),
            (Some("1.0.0"), None),
            (Some("1.0.0"), Some(probe("1.0.0", FOREIGN_PROTOCOL))),
        ] {
            match adapter.evaluate_native_eligibility(version, probe.as_ref()) {
                Ok(e) if e == unsupported() => {}
                other => problems.push(format!(
                    "with no nativeDelivery contract, eligibility at {version:?} is {other:?}, not {{false, native_delivery_unsupported, null, null, []}}"
                )),
            }
        }
        return problems.into_outcome();
    };
    if contract.minimum.trim().is_empty() {
        problems.push("nativeDelivery.minimum is empty");
    }
    let primary = adapter.manifest().client.primary();
    for anchor in contract
        .anchors
        .iter()
        .filter(|a| a.owner(primary) == primary)
    {
        let answer = adapter.evaluate_native_eligibility(
            Some(&anchor.version),
            Some(&probe(&anchor.version, &anchor.protocol_contract)),
        );
        if !answer.as_ref().is_ok_and(|e| e.eligible) {
            problems.push(format!(
                "anchor {} ({}) is not eligible on a probe that reports it: {answer:?}",
                anchor.version, anchor.protocol_contract
            ));
        }
    }
    let foreign = adapter.evaluate_native_eligibility(
        Some(FUTURE_VERSION),
        Some(&probe(FUTURE_VERSION, FOREIGN_PROTOCOL)),
    );
    if !matches!(&foreign, Ok(e) if e.reason_code == Some(ReasonCode::ProtocolMismatch)) {
        problems.push(format!(
            "{FUTURE_VERSION} reporting {FOREIGN_PROTOCOL} gives {foreign:?}, not protocol_mismatch"
        ));
    }
    let ancient = adapter.evaluate_native_eligibility(Some(ANCIENT_VERSION), None);
    if !matches!(&ancient, Ok(e) if e.reason_code == Some(ReasonCode::BelowMinimumVersion)) {
        problems.push(format!(
            "{ANCIENT_VERSION} gives {ancient:?}, not below_minimum_version"
        ));
    }
    match adapter.behaviour().native_session() {
        None => problems.push(
            "a nativeDelivery contract is declared but the behaviour has no native session methods (probe_native_delivery, bind_native_session)",
        ),
        Some(native) => {
            let sb = match sandbox(ctx, adapter) {
                Ok(sb) => sb,
                Err(outcome) => return outcome,
            };
            let answer = native.probe_native_delivery(sb.context());
            if let Err(problem) =
                adapter.evaluate_native_eligibility(Some(&contract.minimum), answer.as_ref())
            {
                problems.push(format!(
                    "probe_native_delivery answers in a shape the contract refuses: {}",
                    problem.message
                ));
            }
        }
    }
    problems.into_outcome()
}
