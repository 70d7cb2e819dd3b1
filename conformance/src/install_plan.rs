//! Plan against install: what `plan_install` says install writes, what install reported it
//! created or edited, and what actually changed in the home. A plan that drifts from the
//! install makes `acc install --dry-run` a decoration, so every difference is named.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use acc_runtime::installer::report::FileAction;
use acc_sdk::define::Adapter;
use acc_sdk::install::Artifact;

use crate::sandbox::Sandbox;
use crate::snapshot::{ChangeKind, TreeChange};

/// One way the install differed from its plan.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum PlanDifference {
    /// Planned, but install did not report creating or editing it.
    NotWritten {
        path: PathBuf,
        reported: Option<FileAction>,
    },
    /// Install reported creating or editing it, but the plan does not name it.
    Unplanned { path: PathBuf, action: FileAction },
    /// Changed on disk outside every planned artifact.
    OutsidePlan { path: PathBuf, kind: ChangeKind },
    /// Planned outside the home the install was given.
    OutsideHome { path: PathBuf },
}

impl PlanDifference {
    /// One line naming the path (through `show`) and what differs.
    pub fn describe(&self, show: &dyn Fn(&Path) -> String) -> String {
        match self {
            PlanDifference::NotWritten { path, reported } => {
                let what = match reported {
                    Some(action) => format!("install reported it {}", action_word(*action)),
                    None => "install did not touch it".to_owned(),
                };
                format!("{} is in the plan but {what}", show(path))
            }
            PlanDifference::Unplanned { path, action } => format!(
                "{} was {} by install but is not in the plan",
                show(path),
                action_word(*action)
            ),
            PlanDifference::OutsidePlan { path, kind } => format!(
                "{} was {} by install outside every planned artifact",
                show(path),
                kind.as_str()
            ),
            PlanDifference::OutsideHome { path } => format!(
                "{} is planned outside the home the install was given",
                show(path)
            ),
        }
    }
}

fn action_word(action: FileAction) -> &'static str {
    match action {
        FileAction::Created => "created",
        FileAction::Edited => "edited",
        FileAction::Unchanged => "unchanged",
        FileAction::Restored => "restored",
        FileAction::Removed => "removed",
        FileAction::Kept => "kept",
        FileAction::Missing => "missing",
        FileAction::Refused => "refused",
    }
}

/// The plan, what install reported and what changed on disk, with their differences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanComparison {
    pub planned: Vec<Artifact>,
    /// What install reported per file, sorted by path.
    pub reported: Vec<(PathBuf, FileAction)>,
    pub disk: Vec<TreeChange>,
    pub differences: Vec<PlanDifference>,
}

/// Plans, installs into `sandbox` (a fresh one: the comparison holds for a first install),
/// and compares.
pub fn compare_plan_with_install(
    sandbox: &Sandbox,
    adapter: &Adapter,
) -> Result<PlanComparison, String> {
    let plan = adapter
        .behaviour()
        .plan_install(sandbox.context())
        .map_err(|e| format!("plan_install refused: {}", sandbox.redact(&e.to_string())))?;
    let before = sandbox
        .home_snapshot()
        .map_err(|e| format!("cannot read the sandbox home: {e}"))?;
    let report = sandbox
        .install(adapter)
        .map_err(|e| format!("install failed: {}", sandbox.redact(&e.message)))?;
    let after = sandbox
        .home_snapshot()
        .map_err(|e| format!("cannot read the sandbox home: {e}"))?;
    let mut reported: Vec<(PathBuf, FileAction)> = report
        .adapters
        .iter()
        .flat_map(|a| a.files.iter().map(|f| (f.path.clone(), f.action)))
        .collect();
    reported.sort();
    let disk = before.changes(&after);
    let differences = differences(&plan.artifacts, &reported, &disk, &sandbox.home);
    let mut planned = plan.artifacts;
    planned.sort();
    Ok(PlanComparison {
        planned,
        reported,
        disk,
        differences,
    })
}

fn writes(action: FileAction) -> bool {
    matches!(action, FileAction::Created | FileAction::Edited)
}

/// The differences between a plan, an install report and the changes on disk.
pub fn differences(
    planned: &[Artifact],
    reported: &[(PathBuf, FileAction)],
    disk: &[TreeChange],
    home: &Path,
) -> Vec<PlanDifference> {
    let planned_paths: BTreeSet<&Path> = planned.iter().map(|a| a.path.as_path()).collect();
    let mut out = Vec::new();
    for path in &planned_paths {
        if !path.starts_with(home) {
            out.push(PlanDifference::OutsideHome {
                path: path.to_path_buf(),
            });
        }
        let action = reported.iter().find(|(p, _)| p == path).map(|(_, a)| *a);
        if !action.is_some_and(writes) {
            out.push(PlanDifference::NotWritten {
                path: path.to_path_buf(),
                reported: action,
            });
        }
    }
    for (path, action) in reported {
        if writes(*action) && !planned_paths.contains(path.as_path()) {
            out.push(PlanDifference::Unplanned {
                path: path.clone(),
                action: *action,
            });
        }
    }
    for change in disk {
        // A directory install had to create on the way to a planned artifact is part of it.
        let covered = planned_paths
            .iter()
            .any(|p| change.path.starts_with(p) || p.starts_with(&change.path));
        if !covered {
            out.push(PlanDifference::OutsidePlan {
                path: change.path.clone(),
                kind: change.kind,
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::install::ArtifactKind;

    fn artifact(path: &str) -> Artifact {
        Artifact {
            path: PathBuf::from(path),
            kind: ArtifactKind::Merge,
        }
    }

    #[test]
    fn a_faithful_install_has_no_differences() {
        let planned = [artifact("/h/.c/hooks.json"), artifact("/h/.c/skills/acc")];
        let reported = [
            (PathBuf::from("/h/.c/hooks.json"), FileAction::Edited),
            (PathBuf::from("/h/.c/skills/acc"), FileAction::Created),
        ];
        let disk = [
            TreeChange {
                path: "/h/.c/hooks.json".into(),
                kind: ChangeKind::Modified,
            },
            TreeChange {
                path: "/h/.c/skills".into(),
                kind: ChangeKind::Added,
            },
            TreeChange {
                path: "/h/.c/skills/acc/SKILL.md".into(),
                kind: ChangeKind::Added,
            },
        ];
        assert!(differences(&planned, &reported, &disk, Path::new("/h")).is_empty());
    }

    #[test]
    fn every_kind_of_drift_is_named() {
        let planned = [artifact("/h/.c/hooks.json"), artifact("/elsewhere/x")];
        let reported = [
            (PathBuf::from("/h/.c/other.json"), FileAction::Created),
            (PathBuf::from("/elsewhere/x"), FileAction::Unchanged),
        ];
        let disk = [TreeChange {
            path: "/h/.bashrc".into(),
            kind: ChangeKind::Modified,
        }];
        let found = differences(&planned, &reported, &disk, Path::new("/h"));
        let show = |p: &Path| p.display().to_string();
        let lines: Vec<String> = found.iter().map(|d| d.describe(&show)).collect();
        assert_eq!(
            lines,
            [
                "/elsewhere/x is in the plan but install reported it unchanged",
                "/h/.c/hooks.json is in the plan but install did not touch it",
                "/h/.c/other.json was created by install but is not in the plan",
                "/h/.bashrc was modified by install outside every planned artifact",
                "/elsewhere/x is planned outside the home the install was given",
            ]
        );
    }
}
