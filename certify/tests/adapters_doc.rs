//! docs/ADAPTERS.md, followed for a throwaway adapter `example`: scaffolded with
//! `new-adapter` into a scratch repository and validated there; its template compiled here
//! (the modules below are the template's own files) and installed with `diff-install` and
//! `wire` as the gate runs them. The page must name every command run here, every
//! capability and every backing method the SDK checks, so it cannot drift from the code.

#[path = "gate_support/mod.rs"]
mod support;

// The template's `src/`, as the crate root `src/lib.rs` makes it (minus the embedding
// `shipped_adapter!`, which needs the crate's build script).
#[path = "../templates/adapter/src/behaviour.rs"]
mod behaviour;
#[path = "../templates/adapter/src/events.rs"]
mod events;
#[path = "../templates/adapter/src/install.rs"]
mod install;
#[path = "../templates/adapter/src/normalize.rs"]
mod normalize;
#[path = "../templates/adapter/src/outcomes.rs"]
mod outcomes;
#[path = "../templates/adapter/src/tools.rs"]
mod tools;

const ID: &str = "example";

use std::path::Path;

use acc_certify::new_adapter::TEMPLATE;
use acc_conformance::context::CheckContext;
use acc_sdk::capabilities::Capability;
use acc_sdk::define::Adapter;
use support::{certify_in, hook_bin, repo};

fn page() -> String {
    std::fs::read_to_string(repo().join("docs/ADAPTERS.md")).unwrap()
}

fn template_adapter() -> Adapter {
    Adapter::from_embedded(
        include_str!("../templates/adapter/adapter.json"),
        include_str!("../templates/adapter/certification.json"),
        Box::new(behaviour::Behaviour),
    )
    .unwrap()
}

/// A repository as `--root` needs it: `adapters/` and `Cargo.toml`.
fn scratch_repo() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("adapters")).unwrap();
    std::fs::copy(repo().join("Cargo.toml"), root.path().join("Cargo.toml")).unwrap();
    root
}

#[test]
fn the_scaffold_step_writes_the_template_and_it_validates() {
    let page = page();
    let scaffold = r#"acc-certify new-adapter example --display-name "Example CLI""#;
    assert!(
        page.contains(scaffold),
        "docs/ADAPTERS.md names `{scaffold}`"
    );
    let validate = "acc-certify validate --adapter adapters/example";
    assert!(
        page.contains(validate),
        "docs/ADAPTERS.md names `{validate}`"
    );

    let root = scratch_repo();
    let run = certify_in(
        root.path(),
        &["new-adapter", "example", "--display-name", "Example CLI"],
        &[],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let dir = root.path().join("adapters/example");
    for (rel, text) in TEMPLATE {
        assert_eq!(
            std::fs::read_to_string(dir.join(rel)).unwrap(),
            text,
            "{rel}: the id the template is written for comes out unchanged"
        );
        assert!(
            page.contains(rel.rsplit('/').next().unwrap()),
            "the page names {rel}"
        );
    }
    let run = certify_in(
        root.path(),
        &["validate", "--adapter", "adapters/example"],
        &[],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);

    // Every line it asks the author to add elsewhere is on the page too.
    for step in acc_certify::new_adapter::next_steps("example") {
        let file = step.split(':').next().unwrap().replace("example", "<id>");
        assert!(page.contains(&format!("`{file}`")), "the page names {file}");
    }

    // A second scaffold of the same id, and an id no adapter can have, are refused.
    let again = certify_in(root.path(), &["new-adapter", "example", "--json"], &[]);
    assert_eq!(again.code, 2);
    assert_eq!(
        again.json()["error"]["details"]["code"],
        "certify.adapter-exists"
    );
    let bad = certify_in(root.path(), &["new-adapter", "../escape", "--json"], &[]);
    assert_eq!(bad.code, 2);
    assert_eq!(
        bad.json()["error"]["details"]["code"],
        "certify.bad-adapter-id"
    );
    assert!(!root.path().join("escape").exists());
}

#[test]
fn another_id_is_a_valid_adapter_of_its_own() {
    let root = scratch_repo();
    let run = certify_in(root.path(), &["new-adapter", "my-cli", "--json"], &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let lib = std::fs::read_to_string(root.path().join("adapters/my-cli/src/lib.rs")).unwrap();
    assert!(lib.contains("pub const ID: &str = \"my-cli\";"));
    let run = certify_in(
        root.path(),
        &["validate", "--adapter", "adapters/my-cli"],
        &[],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn every_capability_and_backing_method_is_on_the_page() {
    let page = page();
    for cap in Capability::ALL {
        assert!(page.contains(&format!("`{}`", cap.key())), "{}", cap.key());
    }
    for method in [
        "guard_read",
        "guard_write",
        "guard_shell",
        "offer_message",
        "route_reply",
        "normalize_hook",
        "inject_outcome",
    ] {
        assert!(page.contains(&format!("`{method}`")), "{method}");
    }
}

#[test]
fn the_template_adapter_installs_as_planned_and_writes_runnable_commands() {
    let page = page();
    for step in [
        "acc-certify diff-install --adapter example",
        "acc-certify wire --adapter example",
        "acc-certify record --client example",
        "acc-certify matrix",
        "acc-certify gate",
    ] {
        assert!(page.contains(step), "docs/ADAPTERS.md names `{step}`");
    }
    let adapter = template_adapter();
    assert_eq!(adapter.id(), ID);
    let scratch = tempfile::tempdir().unwrap();
    let ctx = CheckContext::new(&repo(), &hook_bin(), scratch.path());
    let diff = acc_certify::diff_install::diff_install(&ctx, &adapter, None).unwrap();
    assert!(diff.differences.is_empty(), "{:?}", diff.differences);
    assert!(!diff.planned.is_empty());

    let wired = acc_certify::wire::wire_adapter(&ctx, &adapter).unwrap();
    assert_eq!(
        wired.commands.len(),
        <install::Install as acc_sdk::install_layout::HookFileClient>::HOOKS.len()
    );
    for c in &wired.commands {
        assert!(
            c.command
                .starts_with("\"<bin>/acc-hook\" --data-home \"<data>\" example "),
            "{c:?}"
        );
        assert!(Path::new(&c.file).ends_with("hooks/acc.json"), "{c:?}");
    }
}
