//! Every check fails on the mistake it exists to catch: a deliberately broken adapter (the
//! shipped Codex adapter with one fault injected, or another declaration) or a broken copy
//! of an adapter directory. And the same wrapper with no fault passes every check, so the
//! failures come from the faults.

mod support;

use std::path::{Path, PathBuf};

use acc_conformance::{CheckContext, Outcome, checks, find};
use acc_sdk::capabilities::Capability;
use acc_sdk::certification::digest::sha256_hex;
use acc_sdk::define::{Adapter, define_adapter, testing};
use serde_json::{Value, json};
use support::faulty::{Fault, declared, faulty};

fn outcome(id: &str, adapter: &Adapter, ctx: &CheckContext) -> Outcome {
    find(id).unwrap().run(ctx, adapter).outcome
}

/// The check fails, with a message containing `expected`.
fn assert_fails_with(id: &str, adapter: &Adapter, ctx: &CheckContext, expected: &str) -> String {
    match outcome(id, adapter, ctx) {
        Outcome::Fail(finding) => {
            assert!(
                finding.message.contains(expected),
                "{id}: expected {expected:?} in {:?}",
                finding.message
            );
            finding.message
        }
        other => panic!("{id} should fail on the broken adapter, got {other:?}"),
    }
}

fn assert_fault(id: &str, fault: Fault, expected: &str) -> String {
    let (_scratch, ctx) = support::context();
    assert_fails_with(id, &faulty(fault), &ctx, expected)
}

/// A root holding copies of `paths` (relative to the repository).
fn copied_root(paths: &[&str]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for rel in paths {
        let to = root.path().join(rel);
        std::fs::create_dir_all(&to).unwrap();
        acc_conformance::sandbox::copy_tree(&support::repo().join(rel), &to).unwrap();
    }
    root
}

#[test]
fn with_no_fault_the_wrapper_passes_every_check() {
    let (_scratch, ctx) = support::context();
    let adapter = faulty(Fault::None);
    for check in checks() {
        let result = check.run(&ctx, &adapter);
        assert!(
            !result.outcome.is_fail(),
            "{}: {:?}",
            check.id,
            result.outcome
        );
    }
}

#[test]
fn manifest_valid_fails_on_an_unreferenced_fixture_a_changed_byte_and_a_stale_build() {
    let root = copied_root(&["adapters/codex"]);
    let (_scratch, ctx) = support::context_at(root.path());
    let codex = acc_runtime::registry::find("codex").unwrap();
    assert_eq!(outcome("conf.manifest.valid", &codex, &ctx), Outcome::Pass);

    let dir = root.path().join("adapters/codex");
    std::fs::write(dir.join("fixtures/stray.json"), "{}").unwrap();
    let message = assert_fails_with(
        "conf.manifest.valid",
        &codex,
        &ctx,
        "adapters/codex/fixtures/stray.json",
    );
    assert!(message.contains("unreferenced_fixture"), "{message}");
    std::fs::remove_file(dir.join("fixtures/stray.json")).unwrap();

    if let Some(row) = codex.certification().evidence.first() {
        let fixture = dir.join(&row.fixture);
        let mut bytes = std::fs::read(&fixture).unwrap();
        bytes[1] ^= 0x20;
        std::fs::write(&fixture, bytes).unwrap();
        let message = assert_fails_with("conf.manifest.valid", &codex, &ctx, "digest_mismatch");
        assert!(message.contains(&row.fixture), "{message}");
        std::fs::copy(
            support::repo().join("adapters/codex").join(&row.fixture),
            &fixture,
        )
        .unwrap();
    }

    let manifest = dir.join("adapter.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("Codex CLI", "Codex CLI (edited)")).unwrap();
    assert_fails_with(
        "conf.manifest.valid",
        &codex,
        &ctx,
        "differs from what this build embeds",
    );
}

fn row_fixture(cap: Capability, version: &str) -> String {
    testing::evidence_row("codex-cli", version, "linux-x64", cap, true)["fixture"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn evidence_backed_fails_when_the_capture_is_missing_or_altered_and_passes_when_intact() {
    let cap = Capability::BeforeWrite;
    let row = testing::evidence_row("codex-cli", "1.0.0", "linux-x64", cap, true);
    let adapter = declared(
        &testing::manifest_json("codex", "codex", &[cap]),
        &testing::certification_json(vec![row.clone()]),
    );
    let root = tempfile::tempdir().unwrap();
    let (_scratch, ctx) = support::context_at(root.path());
    assert_fails_with(
        "conf.capabilities.evidence-backed",
        &adapter,
        &ctx,
        "none of its passing captures",
    );

    let dir = root.path().join("adapters/codex");
    let fixture = row_fixture(cap, "1.0.0");
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    let bytes = b"{\"capture\":true}\n";
    std::fs::write(dir.join(&fixture), bytes).unwrap();
    let provenance = json!({"schemaVersion": 1, "captures": [{
        "id": row["provenanceId"], "client": "codex-cli", "version": "1.0.0",
        "platform": "linux-x64", "observedAt": row["observedAt"], "fixture": fixture,
        "sha256": sha256_hex(bytes), "event": null, "tool": null,
        "claims": [{"capability": cap.key(), "result": "pass", "outcome": {
            "kind": "tool-denied-before-mutation", "idle": "observed", "busy": "unobserved",
            "authority": "blocking", "limitations": []}}]
    }]});
    std::fs::write(
        dir.join("fixtures/certification-provenance.json"),
        provenance.to_string(),
    )
    .unwrap();
    assert_eq!(
        outcome("conf.capabilities.evidence-backed", &adapter, &ctx),
        Outcome::Pass
    );
    std::fs::write(dir.join(&fixture), b"{\"capture\":false}\n").unwrap();
    assert_fails_with(
        "conf.capabilities.evidence-backed",
        &adapter,
        &ctx,
        "sha256 its provenance record names",
    );
}

#[test]
fn shape_fails_when_evidence_grants_a_capability_at_version_0_0_1() {
    let cap = Capability::SessionStart;
    let adapter = declared(
        &testing::manifest_json("codex", "codex", &[cap]),
        &testing::certification_json(vec![testing::evidence_row(
            "codex-cli",
            "0.0.1",
            &acc_runtime::installer::context::platform(),
            cap,
            true,
        )]),
    );
    let (_scratch, ctx) = support::context();
    assert_fails_with(
        "conf.capabilities.shape",
        &adapter,
        &ctx,
        "lifecycle.sessionStart",
    );
}

#[test]
fn detect_read_only_fails_when_detect_writes() {
    assert_fault(
        "conf.detect.read-only",
        Fault::DetectWrites,
        "<home>/.codex-detect-cache (added)",
    );
}

#[test]
fn install_idempotent_fails_when_install_edits_every_time() {
    assert_fault(
        "conf.install.idempotent",
        Fault::InstallAppends,
        "<home>/.codex/AGENTS.md (modified)",
    );
}

#[test]
fn plan_matches_fails_when_the_plan_leaves_out_what_install_writes() {
    let message = assert_fault(
        "conf.install.plan-matches",
        Fault::PlanOmitsSkill,
        "<home>/.codex/skills/acc was created by install but is not in the plan",
    );
    assert!(
        !message.contains("/tmp"),
        "sandbox paths are redacted: {message}"
    );
    assert_fault(
        "conf.install.plan-matches",
        Fault::InstallAppends,
        "<home>/.codex/AGENTS.md was modified by install outside every planned artifact",
    );
}

#[test]
fn uninstall_restores_fails_when_something_is_left() {
    assert_fault(
        "conf.uninstall.restores",
        Fault::UninstallLeavesSkill,
        "<home>/.codex/skills/acc/SKILL.md (added)",
    );
}

#[test]
fn uninstall_idempotent_fails_when_an_empty_uninstall_writes() {
    assert_fault(
        "conf.uninstall.idempotent",
        Fault::EmptyUninstallWrites,
        "<home>/.codex-uninstall.log (added)",
    );
}

#[test]
fn keeps_user_edits_fails_when_uninstall_throws_them_away() {
    assert_fault(
        "conf.uninstall.keeps-user-edits",
        Fault::UninstallDropsUserEdits,
        "the user's edit to <home>/.codex/hooks.json was lost",
    );
}

#[test]
fn doctor_read_only_fails_when_doctor_writes() {
    assert_fault(
        "conf.doctor.read-only",
        Fault::DoctorWrites,
        "<home>/.codex-doctor.log (added)",
    );
}

#[test]
fn absolute_commands_fails_on_a_relative_acc_hook() {
    assert_fault(
        "conf.hooks.absolute-commands",
        Fault::RelativeCommand,
        "runs `acc-hook` by a relative name",
    );
}

#[test]
fn wiring_executes_fails_when_the_written_hook_does_not_run() {
    let message = assert_fault("conf.hooks.wiring-executes", Fault::FailingHook, "exited 3");
    assert!(message.contains("stderr: broken"), "{message}");
    // The same command passes the static check: only running it shows the failure.
    let (_scratch, ctx) = support::context();
    assert_eq!(
        outcome(
            "conf.hooks.absolute-commands",
            &faulty(Fault::FailingHook),
            &ctx
        ),
        Outcome::Pass
    );
}

#[test]
fn refuses_unknown_fails_when_the_adapter_invents_a_session() {
    assert_fault(
        "conf.normalize.refuses-unknown",
        Fault::InventsSession,
        "accepted the string \"garbage\"",
    );
}

#[test]
fn whitelist_fails_when_a_prompt_leaks() {
    assert_fault(
        "conf.normalize.whitelist",
        Fault::LeaksPrompt,
        "carries ACC-CANARY-prompt",
    );
}

#[test]
fn stable_session_fails_when_the_id_depends_on_the_event() {
    assert_fault(
        "conf.normalize.stable-session",
        Fault::UnstableSession,
        "every event of one session must give the same sessionId",
    );
}

#[test]
fn deny_shape_fails_on_a_silent_deny() {
    let message = assert_fault("conf.outcome.deny-shape", Fault::SilentDeny, "is silent");
    assert!(message.contains("does not carry acc's reason"), "{message}");
}

fn capture_with_deny(root: &Path, outcome: Value) -> Adapter {
    let cap = Capability::BeforeWrite;
    let fixture = row_fixture(cap, "1.0.0");
    let path: PathBuf = root.join("adapters/codex").join(&fixture);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let capture = json!({"hookEvents": [
        {"event": "SessionStart", "kind": "sessionStart", "outcome": {"exitCode": 0, "stdout": {"kind": "empty"}, "stderr": {"kind": "empty"}}},
        {"event": "PreToolUse", "kind": "beforeTool", "outcome": outcome},
    ]});
    std::fs::write(&path, capture.to_string()).unwrap();
    declared(
        &testing::manifest_json("codex", "codex", &[cap]),
        &testing::certification_json(vec![testing::evidence_row(
            "codex-cli",
            "1.0.0",
            "linux-x64",
            cap,
            true,
        )]),
    )
}

#[test]
fn deny_shape_fails_when_the_capture_saw_another_shape() {
    let root = tempfile::tempdir().unwrap();
    let (_scratch, ctx) = support::context_at(root.path());
    let json_deny = json!({"exitCode": 0, "stdout": {"kind": "json", "keys": ["hookSpecificOutput"]}, "stderr": {"kind": "empty"}});
    let adapter = capture_with_deny(root.path(), json_deny);
    let message = assert_fails_with(
        "conf.outcome.deny-shape",
        &adapter,
        &ctx,
        "differs from the one the passing guards.beforeWrite capture",
    );
    assert!(
        message.contains("adapters/codex/fixtures/codex-cli-1-0-0-linux-x64-beforewrite.json"),
        "{message}"
    );
    // Codex's real deny (exit 2, the reason on stderr) matches a capture of that shape.
    let exit_two = json!({"exitCode": 2, "stdout": {"kind": "empty"}, "stderr": {"kind": "text"}});
    let adapter = capture_with_deny(root.path(), exit_two);
    assert_eq!(
        outcome("conf.outcome.deny-shape", &adapter, &ctx),
        Outcome::Pass
    );
}

#[test]
fn inject_shape_fails_when_the_text_is_lost_or_empty_text_is_not_silent() {
    assert_fault(
        "conf.outcome.inject-shape",
        Fault::InjectDropsText,
        "does not carry the text",
    );
    assert_fault(
        "conf.outcome.inject-shape",
        Fault::InjectNoisyWhenEmpty,
        "inject of empty text at sessionStart is not silent",
    );
}

#[test]
fn solo_empty_fails_when_a_solo_session_sees_text() {
    assert_fault(
        "conf.context.solo-empty",
        Fault::SoloRenders,
        "a solo session renders",
    );
}

#[test]
fn peer_untrusted_fails_on_raw_peer_text() {
    let message = assert_fault(
        "conf.context.peer-untrusted",
        Fault::RawPeerText,
        "raw ESC byte",
    );
    assert!(message.contains("forged a fence"), "{message}");
    assert!(message.contains("not labelled untrusted"), "{message}");
    assert!(message.contains("forged a header"), "{message}");
    assert!(
        message.contains("invisible or bidi character U+202E"),
        "{message}"
    );
    assert!(message.contains("outside a fenced block"), "{message}");
}

fn native_adapter(probe: Value) -> Adapter {
    let dir = support::repo().join("fixtures/sdk/valid-native");
    let read = |f: &str| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join(f)).unwrap()).unwrap()
    };
    define_adapter(
        &read("adapter.json"),
        &read("certification.json"),
        testing::TestBehaviour::new()
            .backing_all()
            .native(Some(probe), None)
            .boxed(),
    )
    .unwrap()
}

#[test]
fn native_contract_fails_on_a_malformed_probe_and_passes_on_a_closed_one() {
    let (_scratch, ctx) = support::context();
    let good = json!({"supported": true, "clientVersion": "2.1.0", "protocolContract": "example-inbox-v1", "modes": ["livePush"]});
    assert_eq!(
        outcome("conf.native.contract", &native_adapter(good), &ctx),
        Outcome::Pass
    );
    assert_fails_with(
        "conf.native.contract",
        &native_adapter(json!({"supported": "yes", "extra": 1})),
        &ctx,
        "probe_native_delivery answers in a shape the contract refuses",
    );
}

#[test]
fn docs_fail_without_compatibility_or_a_required_section() {
    let root = copied_root(&["adapters/codex"]);
    let (_scratch, ctx) = support::context_at(root.path());
    let codex = acc_runtime::registry::find("codex").unwrap();
    assert_eq!(
        outcome("conf.docs.compatibility", &codex, &ctx),
        Outcome::Pass
    );
    let file = root.path().join("adapters/codex/COMPATIBILITY.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("## Not observed", "## Other notes")).unwrap();
    assert_fails_with(
        "conf.docs.compatibility",
        &codex,
        &ctx,
        "has no section for what was not observed",
    );
    std::fs::remove_file(&file).unwrap();
    assert_fails_with(
        "conf.docs.compatibility",
        &codex,
        &ctx,
        "adapters/codex/COMPATIBILITY.md is missing",
    );
}
