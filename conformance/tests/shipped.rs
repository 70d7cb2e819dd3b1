//! Every check, for every shipped adapter: one test per check id, iterating the registry,
//! so a failure names both the check and the adapter.

mod support;

use acc_conformance::{Outcome, checks, find};

fn run_check(id: &str) {
    let (_scratch, ctx) = support::context();
    let check = find(id).unwrap_or_else(|| panic!("{id} is not a registered check"));
    let mut failures = Vec::new();
    let adapters = acc_runtime::registry::all();
    assert_eq!(adapters.len(), 9, "every shipped adapter is checked");
    for adapter in &adapters {
        let result = check.run(&ctx, adapter);
        assert_eq!(result.check.as_str(), id);
        assert_eq!(result.adapter, adapter.id());
        if let Outcome::Fail(finding) = &result.outcome {
            failures.push(format!(
                "{id} [{}]: {} (file: {})",
                result.adapter,
                finding.message,
                finding.file.as_deref().unwrap_or("-")
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

macro_rules! one_test_per_check {
    ($($name:ident => $id:literal,)*) => {
        $(
            #[test]
            fn $name() {
                run_check($id);
            }
        )*

        #[test]
        fn every_registered_check_has_its_own_test() {
            let tested = [$($id),*];
            let registered: Vec<&str> = checks().iter().map(|c| c.id.as_str()).collect();
            assert_eq!(registered, tested);
        }
    };
}

one_test_per_check! {
    manifest_valid => "conf.manifest.valid",
    capabilities_evidence_backed => "conf.capabilities.evidence-backed",
    capabilities_shape => "conf.capabilities.shape",
    detect_read_only => "conf.detect.read-only",
    install_idempotent => "conf.install.idempotent",
    install_plan_matches => "conf.install.plan-matches",
    uninstall_restores => "conf.uninstall.restores",
    uninstall_idempotent => "conf.uninstall.idempotent",
    uninstall_keeps_user_edits => "conf.uninstall.keeps-user-edits",
    doctor_read_only => "conf.doctor.read-only",
    hooks_absolute_commands => "conf.hooks.absolute-commands",
    hooks_wiring_executes => "conf.hooks.wiring-executes",
    normalize_refuses_unknown => "conf.normalize.refuses-unknown",
    normalize_whitelist => "conf.normalize.whitelist",
    normalize_stable_session => "conf.normalize.stable-session",
    outcome_deny_shape => "conf.outcome.deny-shape",
    outcome_inject_shape => "conf.outcome.inject-shape",
    context_solo_empty => "conf.context.solo-empty",
    context_peer_untrusted => "conf.context.peer-untrusted",
    native_contract => "conf.native.contract",
    docs_compatibility => "conf.docs.compatibility",
}

#[test]
fn ids_are_unique_stable_and_described() {
    let mut ids: Vec<&str> = checks().iter().map(|c| c.id.as_str()).collect();
    for check in checks() {
        assert!(check.id.as_str().starts_with("conf."), "{}", check.id);
        assert!(
            check
                .id
                .as_str()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '.' || c == '-'),
            "{}",
            check.id
        );
        assert!(!check.description.is_empty() && !check.description.contains('\n'));
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), checks().len());
}
