//! Which participant a hooked session acts as: `ACC_PARTICIPANT` when the operator pinned a
//! durable name, else a name derived from the client's own session id, so one conversation
//! keeps one address and unrelated conversations never share one by accident.

use crate::ids::ParticipantId;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// Longest pinned participant name, in characters.
pub const MAX_PINNED_CHARS: usize = 60;

/// `ACC_PARTICIPANT` trimmed, each run of characters outside `[A-Za-z0-9._-]` turned into
/// one `-`, cut to 60 characters. `None` when nothing usable is left.
pub fn sanitise_pinned(raw: &str) -> Option<ParticipantId> {
    let mut out = String::new();
    let mut in_run = false;
    for c in raw.trim().chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            out.push(c);
            in_run = false;
        } else if !in_run {
            out.push('-');
            in_run = true;
        }
    }
    let cut: String = out.chars().take(MAX_PINNED_CHARS).collect();
    ParticipantId::parse(&cut).ok()
}

/// `<adapter-id>-<first 6 characters of base64url(sha256(client session id))>`.
pub fn derived(adapter_id: &str, client_session_id: &str) -> ParticipantId {
    let digest = Sha256::digest(client_session_id.as_bytes());
    let encoded = URL_SAFE_NO_PAD.encode(digest);
    let id = format!("{adapter_id}-{}", &encoded[..6]);
    ParticipantId::parse(&id).expect("adapter ids and base64url are portable")
}

/// The participant for a session: the pinned name when it sanitises to a valid id (a name
/// that does not falls back, rather than failing the hook), else the derived one.
pub fn resolve(pinned: Option<&str>, adapter_id: &str, client_session_id: &str) -> ParticipantId {
    pinned
        .and_then(sanitise_pinned)
        .unwrap_or_else(|| derived(adapter_id, client_session_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_names_are_sanitised_and_cut() {
        let p = |s: &str| sanitise_pinned(s).map(|p| p.to_string());
        assert_eq!(p("  alice  ").as_deref(), Some("alice"));
        assert_eq!(p("Bob Smith (QA)").as_deref(), Some("Bob-Smith-QA-"));
        assert_eq!(p("a  /\\  b").as_deref(), Some("a-b"));
        assert_eq!(
            p("élan").as_deref(),
            None,
            "starts with '-' after sanitising"
        );
        assert_eq!(p("x.élan").as_deref(), Some("x.-lan"));
        let long = "a".repeat(100);
        assert_eq!(p(&long).unwrap().len(), MAX_PINNED_CHARS);
        assert_eq!(p("   "), None);
        assert_eq!(p("trailing."), None);
    }

    #[test]
    fn derived_names_are_stable_and_distinct() {
        let a = derived("claude-code", "153704b0-6669-46cb-920a-2ce9f19c6b34");
        assert_eq!(
            a,
            derived("claude-code", "153704b0-6669-46cb-920a-2ce9f19c6b34")
        );
        assert_ne!(a, derived("claude-code", "another"));
        let s = a.to_string();
        assert!(s.starts_with("claude-code-"));
        assert_eq!(s.len(), "claude-code-".len() + 6);
        // sha256("abc") = ba7816bf…, whose base64url starts "ungWv4".
        assert_eq!(derived("codex", "abc").to_string(), "codex-ungWv4");
    }

    #[test]
    fn unusable_pins_fall_back_to_the_derived_name() {
        assert_eq!(resolve(Some("alice"), "codex", "s").to_string(), "alice");
        assert_eq!(resolve(Some("--"), "codex", "s"), derived("codex", "s"));
        assert_eq!(resolve(None, "codex", "s"), derived("codex", "s"));
    }
}
