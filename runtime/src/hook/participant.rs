//! Which participant a hooked session acts as: `ACC_PARTICIPANT` when the operator chose a
//! name, else its client's name (the adapter id, `claude-code`, `codex`), so a person can
//! predict and type it and the same agent keeps it across its runs in a workspace. The core
//! makes it unique only while another live session acts as it (`codex-2`, `codex-3`…), and a
//! conversation that comes back keeps the numbered name it had when that is free.

use crate::ids::ParticipantId;

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

/// The name a session asks for, and the base it is made unique from (none for a chosen name:
/// sessions an operator names alike act as one participant, by choice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    pub preferred: ParticipantId,
    pub base: Option<ParticipantId>,
}

/// The pinned name when it sanitises to a valid id (a name that does not falls back, rather
/// than failing the hook); else the client's name, or the numbered form of it `earlier` (the
/// participant this conversation acted as before) had.
pub fn resolve(pinned: Option<&str>, adapter_id: &str, earlier: Option<&ParticipantId>) -> Naming {
    if let Some(name) = pinned.and_then(sanitise_pinned) {
        return Naming {
            preferred: name,
            base: None,
        };
    }
    let base = ParticipantId::parse(adapter_id).expect("adapter ids are portable ids");
    let preferred = earlier
        .filter(|e| is_numbered_form_of(e.as_str(), adapter_id))
        .cloned()
        .unwrap_or_else(|| base.clone());
    Naming {
        preferred,
        base: Some(base),
    }
}

/// `base` itself or `base-N` for a number N of 2 or more.
fn is_numbered_form_of(name: &str, base: &str) -> bool {
    match name.strip_prefix(base) {
        Some("") => true,
        Some(rest) => rest.strip_prefix('-').is_some_and(|n| {
            !n.is_empty() && !n.starts_with('0') && n.bytes().all(|b| b.is_ascii_digit())
        }),
        None => false,
    }
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

    fn id(s: &str) -> ParticipantId {
        ParticipantId::parse(s).unwrap()
    }

    #[test]
    fn an_unpinned_session_asks_for_its_clients_name() {
        let n = resolve(None, "codex", None);
        assert_eq!(n.preferred, id("codex"));
        assert_eq!(n.base, Some(id("codex")));
        // A conversation that was codex-3 asks for codex-3 again.
        assert_eq!(
            resolve(None, "codex", Some(&id("codex-3"))).preferred,
            id("codex-3")
        );
        // Names that are not this client's numbered forms are not kept.
        for earlier in [
            "alice",
            "codex-ungWv4",
            "codex-0",
            "codex-02",
            "codex-",
            "codexx",
        ] {
            assert_eq!(
                resolve(None, "codex", Some(&id(earlier))).preferred,
                id("codex"),
                "{earlier}"
            );
        }
    }

    #[test]
    fn a_pin_wins_and_an_unusable_pin_falls_back_to_the_clients_name() {
        let n = resolve(Some("alice"), "codex", Some(&id("codex-2")));
        assert_eq!(
            n,
            Naming {
                preferred: id("alice"),
                base: None
            }
        );
        assert_eq!(resolve(Some("--"), "codex", None).preferred, id("codex"));
    }
}
