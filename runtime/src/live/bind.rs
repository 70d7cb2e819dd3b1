//! What a session's own hooks publish: the adapter's per-session handshake, validated
//! against the contract, stored as a binding with a lease, or the binding retired when the
//! handshake refuses. Hooks fail open: every failure here is a note, never a hook error.

use std::collections::BTreeMap;

use acc_sdk::adapter::NativeSessionFacts;
use acc_sdk::define::Adapter;
use acc_sdk::native::{ReasonCode, validate_native_handshake};
use serde_json::Value;

use super::contract::contract_for;
use crate::clock::to_iso;
use crate::core::native::PublishBinding;
use crate::core::{Core, Owner};

/// How long a published binding stays offerable without a new turn. A session that died
/// meanwhile is found out by the offer (the socket refuses), which retires the binding.
pub const LEASE_MS: i64 = 12 * 60 * 60 * 1000;

/// The session facts a hook knows.
#[derive(Debug, Clone)]
pub struct HookFacts<'a> {
    pub owner: &'a Owner,
    pub cwd: &'a str,
    pub client_session_id: &'a str,
    pub client_pid: Option<u32>,
    pub client_version: Option<&'a str>,
    pub client_name: Option<&'a str>,
    pub permission_mode: Option<&'a str>,
    pub env: &'a BTreeMap<String, String>,
    /// A recorder named `delivery.livePush` for this sandbox.
    pub candidate: bool,
}

/// What the publication did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// The adapter has no native session methods, or no contract judges it.
    NotApplicable,
    Published,
    /// The handshake refused (its reason code); any earlier binding was retired.
    Refused(String),
}

/// Runs the handshake and publishes or retires the binding. `Err` carries a note.
pub fn publish(adapter: &Adapter, core: &mut Core, f: &HookFacts<'_>) -> Result<Bound, String> {
    let Some(native) = adapter.behaviour().native_session() else {
        return Ok(Bound::NotApplicable);
    };
    if adapter.native_delivery().is_none() && !f.candidate {
        return Ok(Bound::NotApplicable);
    }
    let now = core.now_ms();
    let lease_until_ms = now + LEASE_MS;
    let facts = NativeSessionFacts {
        session_id: f.owner.session.as_str().to_owned(),
        generation: f.owner.generation.as_str().to_owned(),
        cwd: f.cwd.to_owned(),
        client_pid: f.client_pid,
        client_version: f.client_version.map(str::to_owned),
        client_name: f.client_name.map(str::to_owned),
        client_session_id: f.client_session_id.to_owned(),
        permission_mode: f.permission_mode.map(str::to_owned),
        env: f.env.clone(),
        lease_until: to_iso(lease_until_ms),
    };
    let handshake = native.bind_native_session(&facts);
    let reported = |k: &str| {
        handshake
            .as_ref()
            .and_then(|h| h.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let version = reported("clientVersion").or(facts.client_version.clone());
    let protocol = reported("protocolContract");
    let Some(contract) = contract_for(
        adapter,
        f.candidate,
        version.as_deref(),
        protocol.as_deref(),
    ) else {
        retire(core, f.owner)?;
        return Ok(Bound::Refused("native_delivery_unsupported".into()));
    };
    let primary = adapter.manifest().client.primary().to_owned();
    let verdict = validate_native_handshake(
        Some(&contract),
        &primary,
        version.as_deref(),
        handshake.as_ref(),
    )
    .map_err(|p| format!("native handshake of {}: {}", adapter.id(), p.message))?;
    if !verdict.ok {
        let reason = verdict.reason_code.unwrap_or(ReasonCode::HandshakeFailed);
        // A handshake that ran out of its budget says nothing about the session (a loaded
        // machine, a client slowed by a tracer): the binding it already has stays, and every
        // offer checks the endpoint again before it wakes anything. Retiring it here left
        // messages with no live target for the rest of the session.
        if reason == ReasonCode::HandshakeTimeout {
            core.mark_native_turn(f.owner)
                .map_err(|e| format!("marking the native binding's turn: {e}"))?;
        } else {
            retire(core, f.owner)?;
        }
        return Ok(Bound::Refused(reason.as_str().to_owned()));
    }
    let modes: Vec<String> = verdict
        .modes
        .iter()
        .filter_map(|m| serde_json::to_value(m).ok())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let lease = verdict
        .lease_until
        .as_deref()
        .and_then(crate::clock::parse_iso)
        .unwrap_or(lease_until_ms)
        .min(lease_until_ms);
    core.publish_native_binding(
        f.owner,
        &PublishBinding {
            adapter_id: adapter.id(),
            client_version: verdict.client_version.as_deref(),
            protocol_contract: verdict.protocol_contract.as_deref().unwrap_or_default(),
            modes: &modes,
            endpoint_ref: verdict.opaque_endpoint_ref.as_deref().unwrap_or_default(),
            lease_until_ms: lease,
        },
    )
    .map_err(|e| format!("publishing the native binding: {e}"))?;
    Ok(Bound::Published)
}

fn retire(core: &mut Core, owner: &Owner) -> Result<(), String> {
    core.retire_native_binding(&owner.session)
        .map(|_| ())
        .map_err(|e| format!("retiring the native binding: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;
    use acc_sdk::capabilities::Capability;
    use acc_sdk::define::define_adapter;
    use acc_sdk::define::testing::{
        TestBehaviour, certification_json, evidence_row, manifest_json,
    };
    use acc_sdk::native::refused_binding;
    use serde_json::json;

    const PROTOCOL: &str = "example-inbox-v1";

    /// An adapter whose every handshake answers `handshake`.
    fn adapter(handshake: Value) -> Adapter {
        let mut m = manifest_json("example", "example", &[Capability::LivePush]);
        m["nativeDelivery"] = json!({
            "minimum": "1.2.0",
            "anchors": [{"version": "1.2.0", "protocolContract": PROTOCOL}],
            "knownBad": [],
            "activationKinds": ["native-service"],
            "offerKind": "wake",
        });
        let cert = certification_json(vec![evidence_row(
            "example-cli",
            "1.2.0",
            "linux-x64",
            Capability::LivePush,
            true,
        )]);
        let behaviour = TestBehaviour::new()
            .backing(Capability::LivePush)
            .native(None, Some(handshake));
        define_adapter(&m, &cert, behaviour.boxed()).unwrap()
    }

    fn accepted(lease: &str) -> Value {
        json!({
            "supported": true,
            "clientVersion": "1.2.0",
            "protocolContract": PROTOCOL,
            "modes": ["livePush"],
            "opaqueEndpointRef": "endpoint-7",
            "leaseUntil": lease,
        })
    }

    #[test]
    fn a_timed_out_handshake_keeps_the_binding_and_a_refusal_retires_it() {
        let mut k = kit();
        let bob = k.attach("bob");
        let env = BTreeMap::new();
        let facts = HookFacts {
            owner: &bob,
            cwd: "/w",
            client_session_id: "client-session",
            client_pid: Some(4_194_000),
            client_version: Some("1.2.0"),
            client_name: Some("example"),
            permission_mode: None,
            env: &env,
            candidate: false,
        };
        let lease = to_iso(k.core.now_ms() + 60_000);
        let bound = |core: &mut Core| core.native_binding(&bob.session).unwrap();

        let first = publish(&adapter(accepted(&lease)), &mut k.core, &facts).unwrap();
        assert_eq!(first, Bound::Published);
        let held = bound(&mut k.core).expect("published");

        // A wake started the next turn; that turn's handshake runs out of time.
        k.clock.advance_ms(1_000);
        k.core.mark_woken(&bob.session).unwrap();
        assert!(k.core.wake_pending(&bob.session).unwrap());
        k.clock.advance_ms(1_000);
        let slow = adapter(refused_binding(PROTOCOL, "handshake_timeout"));
        let timed_out = publish(&slow, &mut k.core, &facts).unwrap();
        assert_eq!(timed_out, Bound::Refused("handshake_timeout".into()));
        let kept = bound(&mut k.core).expect("a timeout proves nothing: the binding stays");
        assert_eq!(kept.endpoint_ref, held.endpoint_ref);
        assert!(
            !k.core.wake_pending(&bob.session).unwrap(),
            "the earlier turn's wake is not this turn's: its end holds the turn open"
        );

        let gone = adapter(refused_binding(PROTOCOL, "native_session_unavailable"));
        let refused = publish(&gone, &mut k.core, &facts).unwrap();
        assert_eq!(refused, Bound::Refused("native_session_unavailable".into()));
        assert!(
            bound(&mut k.core).is_none(),
            "a refusal retires the binding"
        );
    }
}
