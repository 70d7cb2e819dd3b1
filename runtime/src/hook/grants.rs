//! Which capabilities this invocation may use: the adapter's evidence for the running client,
//! plus what a recorder is certifying in its sandbox.
//!
//! `acc-certify record` cannot capture a behaviour the runtime refuses to show, so it names
//! the capabilities it is certifying in `ACC_CERTIFY_CANDIDATES`. Only next-turn delivery,
//! context injection and child sessions can be granted that way: they decide what text is
//! shown and which session a subagent's calls act as, never whether a write is allowed (a
//! child is judged as its family, exactly as its parent would be).

use super::call::Call;
use super::hook_env::{CERTIFY_CANDIDATES_VAR, CERTIFY_WITHHELD_VAR};
use acc_sdk::capabilities::{Capability, CapabilityGroup, CapabilitySet};
use acc_sdk::define::Adapter;
use acc_sdk::resolution::ClientFacts;

/// Whether a recorder may grant `cap` for its run.
pub fn certifiable(cap: Capability) -> bool {
    cap == Capability::NextTurn
        || cap == Capability::ChildSessions
        || cap.group() == CapabilityGroup::Context
}

/// The capabilities named in `ACC_CERTIFY_CANDIDATES` (comma-separated keys such as
/// `delivery.nextTurn`) that a recorder may grant; any other name is ignored.
pub fn certify_candidates(raw: Option<&str>) -> Vec<Capability> {
    let mut out: Vec<Capability> = raw
        .unwrap_or_default()
        .split(',')
        .filter_map(|name| Capability::parse(name.trim()))
        .filter(|c| certifiable(*c))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The context injections named in `ACC_CERTIFY_WITHHELD` (comma-separated keys): a recorder
/// keeps them silent so that what the model was shown is attributable to the other hook.
/// Only context injection can be withheld: it decides what text is shown, never whether a
/// write is allowed.
pub fn certify_withheld(raw: Option<&str>) -> Vec<Capability> {
    let mut out: Vec<Capability> = raw
        .unwrap_or_default()
        .split(',')
        .filter_map(|name| Capability::parse(name.trim()))
        .filter(|c| c.group() == CapabilityGroup::Context)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The effective capabilities of this invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grants {
    pub facts: ClientFacts,
    /// From evidence alone.
    pub evidence: CapabilitySet,
    /// The recorder's candidates in force for this run.
    pub candidates: Vec<Capability>,
    /// The recorder's withheld injections for this run; they win over evidence.
    pub withheld: Vec<Capability>,
}

impl Grants {
    pub fn resolve(adapter: &Adapter, facts: ClientFacts, candidates: Vec<Capability>) -> Self {
        let evidence = adapter.effective_capabilities(&facts);
        Grants {
            facts,
            evidence,
            candidates,
            withheld: Vec::new(),
        }
    }

    /// This call's grants for `facts`: the evidence, and what the recorder's sandbox names in
    /// its environment (`ACC_CERTIFY_CANDIDATES`, `ACC_CERTIFY_WITHHELD`). The one place the
    /// hook reads the recorder's grant variables, so every handler's grants agree and a
    /// production run (neither variable set) is judged from evidence alone.
    pub fn of_call(call: &Call, facts: ClientFacts) -> Self {
        let env = &call.settings.env;
        Grants::resolve(
            &call.adapter,
            facts,
            certify_candidates(env.get(CERTIFY_CANDIDATES_VAR)),
        )
        .withholding(certify_withheld(env.get(CERTIFY_WITHHELD_VAR)))
    }

    /// The same grants with `withheld` kept silent (see [`certify_withheld`]).
    pub fn withholding(mut self, withheld: Vec<Capability>) -> Self {
        self.withheld = withheld;
        self
    }

    pub fn granted(&self, cap: Capability) -> bool {
        !self.is_withheld(cap) && (self.evidence.get(cap) || self.candidates.contains(&cap))
    }

    pub fn is_withheld(&self, cap: Capability) -> bool {
        self.withheld.contains(&cap)
    }

    /// Every granted capability's key, for the session's extensions.
    pub fn keys(&self) -> Vec<&'static str> {
        Capability::ALL
            .into_iter()
            .filter(|c| self.granted(*c))
            .map(Capability::key)
            .collect()
    }

    /// Why `cap` is not granted, in the runner's words, naming the evidence.
    pub fn refusal(&self, adapter: &Adapter, cap: Capability) -> String {
        adapter
            .capability_evidence(&self.facts, cap)
            .refusal_text(cap, &self.facts)
            .unwrap_or_else(|| format!("{cap} is not granted"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_delivery_context_and_child_candidates_count() {
        let got = certify_candidates(Some(
            "delivery.nextTurn, guards.beforeWrite,context.startupInjection,bogus,,delivery.livePush,delivery.nextTurn",
        ));
        assert_eq!(
            got,
            vec![Capability::StartupInjection, Capability::NextTurn]
        );
        assert!(certify_candidates(None).is_empty());
        assert!(certify_candidates(Some("lifecycle.sessionEnd")).is_empty());
        for cap in Capability::ALL {
            let expected = matches!(
                cap,
                Capability::NextTurn
                    | Capability::StartupInjection
                    | Capability::BeforeTurnInjection
                    | Capability::SafePointInjection
                    | Capability::ChildSessions
            );
            assert_eq!(certifiable(cap), expected, "{cap}");
        }
    }

    #[test]
    fn only_context_injections_can_be_withheld_and_withheld_wins_over_candidates() {
        let withheld = certify_withheld(Some(
            "context.beforeTurnInjection, guards.beforeWrite,delivery.nextTurn,bogus",
        ));
        assert_eq!(withheld, vec![Capability::BeforeTurnInjection]);
        assert!(certify_withheld(None).is_empty());
        let adapter = crate::registry::find("codex").expect("codex is registered");
        let grants = Grants::resolve(
            &adapter,
            ClientFacts::default(),
            vec![Capability::StartupInjection],
        );
        assert!(grants.granted(Capability::StartupInjection));
        let grants = grants.withholding(vec![Capability::StartupInjection]);
        assert!(!grants.granted(Capability::StartupInjection));
        assert!(grants.is_withheld(Capability::StartupInjection));
        assert!(!grants.keys().contains(&"context.startupInjection"));
    }
}
