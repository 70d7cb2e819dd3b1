use std::fs;

use super::*;
use crate::adapter::AdapterErrorKind;
use crate::install::{ChangeAction, DiagnosticLevel};
use crate::testing::install::context;

const HOOKS: &[HookSpec] = &[
    HookSpec::new("Start", 10),
    HookSpec::new("BeforeTool", 10).matching("write|shell"),
    HookSpec::new("End", 3),
];

/// A client that merges into the user's `settings.json`, and says what it was asked.
struct Merging;

impl HookFileClient for Merging {
    const ADAPTER_ID: &'static str = "merging";
    const COMMAND: &'static str = "merging-client";
    const HOOKS: &'static [HookSpec] = HOOKS;
    const WIRING: &'static dyn HookWiring = &MergedJsonHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(&ctx.home.join(".merging"), "settings.json")
    }

    fn plan_needs_action(&self, _ctx: &InstallContext, layout: &HookFileLayout) -> Vec<String> {
        vec![format!("trust {}", layout.hooks.display())]
    }

    fn install_needs_action(&self, _ctx: &InstallContext, layout: &HookFileLayout) -> Vec<String> {
        vec![format!("hooks written: {}", layout.hooks.exists())]
    }

    fn more_diagnostics(&self, _ctx: &InstallContext, _layout: &HookFileLayout) -> Vec<Diagnostic> {
        vec![hook_config::warn("the client's own warning".into())]
    }
}

/// A client whose hook file is acc's own, with nothing beyond the shared flow.
struct Owning;

impl HookFileClient for Owning {
    const ADAPTER_ID: &'static str = "owning";
    const COMMAND: &'static str = "owning-client";
    const VERSION_ARGS: &'static [&'static str] = &["version"];
    const HOOKS: &'static [HookSpec] = HOOKS;
    const WIRING: &'static dyn HookWiring = &OwnedJsonHooks;

    fn layout(&self, ctx: &InstallContext) -> HookFileLayout {
        HookFileLayout::in_dir(
            &ctx.home.join(".owning"),
            Path::new("hooks").join("acc.json"),
        )
    }
}

fn paths_of_plan(plan: &InstallPlan) -> Vec<PathBuf> {
    plan.artifacts.iter().map(|a| a.path.clone()).collect()
}

fn paths_of_report(report: &InstallReport) -> Vec<PathBuf> {
    report.changes.iter().map(|c| c.path.clone()).collect()
}

#[test]
fn the_layout_puts_the_skill_beside_the_hook_file() {
    let layout = HookFileLayout::in_dir(Path::new("/h/.c"), "hooks/acc.json");
    assert_eq!(layout.hooks, PathBuf::from("/h/.c/hooks/acc.json"));
    assert_eq!(layout.skill, PathBuf::from("/h/.c/skills/acc"));
}

#[test]
fn hook_specs_become_the_handlers_install_writes() {
    let ctx = context(Path::new("/h"), &[]);
    let handlers = Merging.handlers(&ctx);
    let shape: Vec<(&str, Option<&str>, u64)> = handlers
        .iter()
        .map(|h| (h.event.as_str(), h.matcher.as_deref(), h.timeout))
        .collect();
    assert_eq!(
        shape,
        [
            ("Start", None, 10),
            ("BeforeTool", Some("write|shell"), 10),
            ("End", None, 3)
        ]
    );
    assert_eq!(
        handlers[0].command,
        "\"/opt/acc/bin/acc-hook\" merging Start"
    );
    assert!(handlers.iter().all(|h| h.name.is_none()));
}

#[test]
fn the_plan_names_exactly_what_install_writes_for_either_wiring() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let merging = plan(&Merging, &ctx).unwrap();
    let report = install(&Merging, &ctx).unwrap();
    assert_eq!(paths_of_plan(&merging), paths_of_report(&report));
    let kinds: Vec<ArtifactKind> = merging.artifacts.iter().map(|a| a.kind).collect();
    assert_eq!(kinds, [ArtifactKind::Merge, ArtifactKind::Tree]);
    let owning = plan(&Owning, &ctx).unwrap();
    let report = install(&Owning, &ctx).unwrap();
    assert_eq!(paths_of_plan(&owning), paths_of_report(&report));
    assert!(
        owning
            .artifacts
            .iter()
            .all(|a| a.kind == ArtifactKind::Tree)
    );
    assert!(owning.needs_action.is_empty() && report.needs_action.is_empty());
    assert!(
        report
            .changes
            .iter()
            .all(|c| c.action == ChangeAction::Created)
    );
    let again = install(&Owning, &ctx).unwrap();
    assert!(
        again
            .changes
            .iter()
            .all(|c| c.action == ChangeAction::Unchanged)
    );
}

#[test]
fn a_foreign_skill_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let layout = Merging.layout(&ctx);
    fs::create_dir_all(&layout.skill).unwrap();
    fs::write(layout.skill.join(skill::SKILL_FILE), "my own skill").unwrap();
    assert_eq!(
        plan(&Merging, &ctx).unwrap_err().kind,
        AdapterErrorKind::Conflict
    );
    assert_eq!(
        install(&Merging, &ctx).unwrap_err().kind,
        AdapterErrorKind::Conflict
    );
    assert!(!layout.hooks.exists());
}

#[test]
fn a_malformed_hook_file_is_refused_before_the_skill_is_looked_at() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let layout = Merging.layout(&ctx);
    fs::create_dir_all(layout.hooks.parent().unwrap()).unwrap();
    fs::write(&layout.hooks, "{ not json").unwrap();
    fs::create_dir_all(&layout.skill).unwrap();
    fs::write(layout.skill.join(skill::SKILL_FILE), "my own skill").unwrap();
    let err = install(&Merging, &ctx).unwrap_err();
    assert_eq!(err.kind, AdapterErrorKind::MalformedUserFile);
    assert_eq!(err.path.as_deref(), Some(layout.hooks.as_path()));
}

#[test]
fn the_client_adds_its_own_steps_and_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let hooks = Merging.layout(&ctx).hooks;
    assert_eq!(
        plan(&Merging, &ctx).unwrap().needs_action,
        [format!("trust {}", hooks.display())]
    );
    assert_eq!(
        install(&Merging, &ctx).unwrap().needs_action,
        ["hooks written: true"],
        "judged after the files are written"
    );
    let report = doctor(&Merging, &ctx);
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    let [.., hooks, skill, own] = messages.as_slice() else {
        panic!("{messages:?}");
    };
    assert!(hooks.contains("3 acc hook(s)"), "{hooks}");
    assert!(skill.contains("SKILL.md: the acc skill"), "{skill}");
    assert_eq!(*own, "the client's own warning");
    assert!(
        uninstall(&Merging, &ctx, &[])
            .unwrap()
            .needs_action
            .is_empty()
    );
}

#[test]
fn doctor_finds_nothing_before_install() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let report = doctor(&Owning, &ctx);
    assert!(!report.ok);
    assert_eq!(report.diagnostics.len(), 2, "{:?}", report.diagnostics);
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.level == DiagnosticLevel::Error)
    );
}

#[test]
fn uninstall_takes_back_what_install_wrote_and_honours_keep() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let layout = Owning.layout(&ctx);
    install(&Owning, &ctx).unwrap();
    let kept = uninstall(&Owning, &ctx, std::slice::from_ref(&layout.skill)).unwrap();
    let actions: Vec<(PathBuf, ChangeAction)> = kept
        .changes
        .iter()
        .map(|c| (c.path.clone(), c.action))
        .collect();
    assert_eq!(
        actions,
        [
            (layout.hooks.clone(), ChangeAction::Removed),
            (layout.skill.clone(), ChangeAction::Kept)
        ]
    );
    assert!(!layout.hooks.exists() && layout.skill.exists());
    let again = uninstall(&Owning, &ctx, &[]).unwrap();
    assert_eq!(paths_of_report(&again), std::slice::from_ref(&layout.skill));
    assert!(uninstall(&Owning, &ctx, &[]).unwrap().changes.is_empty());
}

#[test]
fn an_owned_hook_file_that_is_not_acc_s_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let layout = Owning.layout(&ctx);
    fs::create_dir_all(layout.hooks.parent().unwrap()).unwrap();
    let foreign = r#"{"hooks":{"End":[{"hooks":[{"type":"command","command":"echo mine"}]}]}}"#;
    fs::write(&layout.hooks, foreign).unwrap();
    assert_eq!(
        plan(&Owning, &ctx).unwrap_err().kind,
        AdapterErrorKind::Conflict
    );
    let report = uninstall(&Owning, &ctx, &[]).unwrap();
    assert_eq!(report.changes.len(), 1);
    assert_eq!(report.changes[0].action, ChangeAction::Kept);
    assert_eq!(fs::read_to_string(&layout.hooks).unwrap(), foreign);
}

#[test]
fn merged_hooks_leave_the_users_file_and_entries() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[]);
    let layout = Merging.layout(&ctx);
    fs::create_dir_all(layout.hooks.parent().unwrap()).unwrap();
    let mine = "{\n  \"theme\": \"dark\"\n}\n";
    fs::write(&layout.hooks, mine).unwrap();
    install(&Merging, &ctx).unwrap();
    assert_ne!(fs::read_to_string(&layout.hooks).unwrap(), mine);
    let report = uninstall(&Merging, &ctx, std::slice::from_ref(&layout.hooks)).unwrap();
    assert_eq!(
        report.changes[0],
        crate::install::FileChange {
            path: layout.hooks.clone(),
            action: ChangeAction::Edited
        },
        "a user's file always loses acc's entries, whatever `keep` says"
    );
    assert_eq!(fs::read_to_string(&layout.hooks).unwrap(), mine);
}

#[test]
fn detection_runs_the_declared_command() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path(), &[("PATH", "/nonexistent-acc-test-path")]);
    let found = detect(&Owning, &ctx);
    assert!(!found.present);
    assert!(found.detail.contains("owning-client"), "{}", found.detail);
    assert_eq!(Merging::VERSION_ARGS, ["--version"], "the default");
}
