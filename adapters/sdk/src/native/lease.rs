//! A session's binding to its live transport, as adapters answer for it: refused with a
//! reason code, or renewed. Every transport renews on the same rule, so it lives here once.

use serde_json::{Value, json};

/// A binding refused, in the contract's shape: the caller's protocol and the reason code.
pub fn refused_binding(protocol: &str, reason: &str) -> Value {
    json!({
        "supported": false,
        "protocolContract": protocol,
        "reasonCode": reason,
    })
}

/// Renews a lease only onto the endpoint it was granted for: a session whose fresh binding
/// names another endpoint (a restarted client, a new socket or daemon) is a new generation,
/// and the old lease must not follow it there.
pub fn renew_lease(protocol: &str, fresh: Value, held: &Value) -> Value {
    if fresh.get("opaqueEndpointRef") == held.get("opaqueEndpointRef") {
        fresh
    } else {
        refused_binding(protocol, "session_generation_stale")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_follows_only_its_own_endpoint() {
        let held = json!({"supported": true, "opaqueEndpointRef": "a"});
        let same = json!({"supported": true, "opaqueEndpointRef": "a", "n": 2});
        assert_eq!(renew_lease("p", same.clone(), &held), same);
        let moved = json!({"supported": true, "opaqueEndpointRef": "b"});
        let refused = renew_lease("p", moved, &held);
        assert_eq!(refused["supported"], false);
        assert_eq!(refused["reasonCode"], "session_generation_stale");
        assert_eq!(refused["protocolContract"], "p");
        // A fresh binding with no endpoint never renews one that had it.
        let none = json!({"supported": false, "reasonCode": "x"});
        assert_eq!(
            renew_lease("p", none, &held)["reasonCode"],
            "session_generation_stale"
        );
    }
}
