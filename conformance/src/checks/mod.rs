//! The registry of checks, in report order. A check is listed here once and runs for every
//! shipped adapter, in `cargo test` and in `acc-certify gate`.

pub mod context_render;
pub mod declaration;
pub mod docs;
pub mod hooks;
pub mod installation;
pub mod native;
pub mod normalize;
pub mod outcomes;

use acc_sdk::define::Adapter;

use crate::check::{Check, Outcome};
use crate::context::CheckContext;
use crate::sandbox::Sandbox;

/// A fresh sandbox for `adapter`, its home a copy of `fixtures/homes/<id>/` when the
/// repository has one.
pub(crate) fn sandbox(ctx: &CheckContext, adapter: &Adapter) -> Result<Sandbox, Outcome> {
    let fixture = ctx.home_fixture(adapter.id());
    Sandbox::new(
        &ctx.scratch,
        &ctx.hook_executable,
        adapter,
        fixture.as_deref(),
    )
    .map_err(|e| Outcome::fail(None, format!("could not build a sandbox home: {e}")))
}

pub static CHECKS: [Check; 21] = [
    Check::new(
        "conf.manifest.valid",
        "adapters/<id>/ validates (manifest, certification, provenance, digests, no unreferenced fixture) and equals what the build embeds",
        declaration::manifest_valid,
    ),
    Check::new(
        "conf.capabilities.evidence-backed",
        "every capability declared true has a passing capture of the primary client whose fixture exists with its recorded sha256",
        declaration::evidence_backed,
    ),
    Check::new(
        "conf.capabilities.shape",
        "the capability shape is 4 groups of 14 booleans, and nothing is granted at client version 0.0.1",
        declaration::capability_shape,
    ),
    Check::new(
        "conf.detect.read-only",
        "detect leaves the home and the data home byte-identical",
        installation::detect_read_only,
    ),
    Check::new(
        "conf.install.idempotent",
        "installing twice equals installing once, and the second install rewrites nothing",
        installation::install_idempotent,
    ),
    Check::new(
        "conf.install.plan-matches",
        "plan_install names exactly the paths install creates or edits, and install changes nothing else",
        installation::plan_matches,
    ),
    Check::new(
        "conf.uninstall.restores",
        "install then uninstall leaves a realistic home byte-identical",
        installation::uninstall_restores,
    ),
    Check::new(
        "conf.uninstall.idempotent",
        "a second uninstall succeeds, reports nothing and changes nothing",
        installation::uninstall_idempotent,
    ),
    Check::new(
        "conf.uninstall.keeps-user-edits",
        "uninstall keeps what the user edited since install and removes only acc's entries from it",
        installation::uninstall_keeps_user_edits,
    ),
    Check::new(
        "conf.doctor.read-only",
        "doctor writes nothing, before or after install, and finds no error right after a clean install",
        installation::doctor_read_only,
    ),
    Check::new(
        "conf.hooks.absolute-commands",
        "every hook command install wrote runs an absolute, existing, executable acc-hook for this adapter with the pinned data home",
        hooks::absolute_commands,
    ),
    Check::new(
        "conf.hooks.wiring-executes",
        "every hook command install wrote runs through sh -c with no PATH on a probe of its event and exits 0 without failing open",
        hooks::wiring_executes,
    ),
    Check::new(
        "conf.normalize.refuses-unknown",
        "an unknown event, a missing session id, garbage and non-objects are refused",
        normalize::refuses_unknown,
    ),
    Check::new(
        "conf.normalize.whitelist",
        "canaries in prompts, transcript paths, file contents and tool output never reach the normalised event",
        normalize::whitelist,
    ),
    Check::new(
        "conf.normalize.stable-session",
        "every event of one session gives the same sessionId, and another session another",
        normalize::stable_session,
    ),
    Check::new(
        "conf.outcome.deny-shape",
        "a deny is not silent, carries the reason, prints valid JSON when it prints, and matches the captured deny",
        outcomes::deny_shape,
    ),
    Check::new(
        "conf.outcome.inject-shape",
        "an injection carries its text byte for byte, is valid JSON when JSON, never blocks, and empty text is silent",
        outcomes::inject_shape,
    ),
    Check::new(
        "conf.context.solo-empty",
        "a solo session's render shows no peer text (its context is the runtime's identity lines alone)",
        context_render::solo_empty,
    ),
    Check::new(
        "conf.context.peer-untrusted",
        "peer text is labelled untrusted, carries no ESC byte, forges no fence or header, and stays within the budget",
        context_render::peer_untrusted,
    ),
    Check::new(
        "conf.native.contract",
        "no contract gives exactly native_delivery_unsupported; a declared one admits its anchors and refuses foreign protocols and older clients",
        native::native_contract,
    ),
    Check::new(
        "conf.docs.compatibility",
        "COMPATIBILITY.md has the client version, events, payload fields, deny/inject matrix, what was not observed and the install layout",
        docs::compatibility,
    ),
];
