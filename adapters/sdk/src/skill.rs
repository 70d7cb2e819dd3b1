//! The skill file (SKILL.md) every client gets: it teaches the agent the `acc` commands,
//! that hooks attach it, and how to use the owner flags the hooks inject.
//!
//! The text is the same for every client (a client that reads another client's skill
//! directories, as Grok reads Claude's, then sees one `acc` skill twice and keeps one);
//! only `{{ACC}}` differs, replaced by the double-quoted absolute path of the `acc` that
//! installed it, because an agent's shell may not have acc on its `PATH`.

use std::path::{Path, PathBuf};

use crate::adapter::AdapterError;
use crate::hook_command::shell_quote;
use crate::install::{Diagnostic, FileChange};
use crate::install_files::{install_tree_file, read_optional, uninstall_tree};

/// The skill's name, also its directory name.
pub const SKILL_NAME: &str = "acc";

/// The one file in a skill tree.
pub const SKILL_FILE: &str = "SKILL.md";

const TEMPLATE: &str = include_str!("skill/SKILL.md");

/// The placeholder for the quoted `acc` path.
pub const ACC_PLACEHOLDER: &str = "{{ACC}}";

/// The SKILL.md text for an `acc` at `acc_executable`.
pub fn render(acc_executable: &Path) -> String {
    TEMPLATE.replace(ACC_PLACEHOLDER, &shell_quote(acc_executable))
}

/// How every SKILL.md acc writes begins; a file there that does not is someone else's.
const OWN_PREFIX: &str = "---\nname: acc\ndescription: Coordinate with the other coding agents";

/// Refuses (`Conflict`) when `dir` holds a SKILL.md acc did not write, so install never
/// overwrites a user's own skill that happens to be called `acc`.
pub fn check_owned(dir: &Path) -> Result<(), AdapterError> {
    use crate::adapter::AdapterErrorKind;
    let file = dir.join(SKILL_FILE);
    match read_optional(&file)? {
        Some(bytes) if !bytes.starts_with(OWN_PREFIX.as_bytes()) => Err(AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{} exists and is not acc's skill; move it aside and run the command again",
                file.display()
            ),
        )
        .at(file)),
        _ => Ok(()),
    }
}

/// Writes `<dir>/SKILL.md`; the change is reported on `dir`, the tree acc owns.
pub fn install(dir: &Path, acc_executable: &Path) -> Result<FileChange, AdapterError> {
    install_tree_file(dir, SKILL_FILE, render(acc_executable).as_bytes())
}

/// Removes the skill tree unless it is in `keep`; files acc did not write stay, and so
/// does a SKILL.md that is not acc's (a caller without an install record has no `keep`).
pub fn uninstall(dir: &Path, keep: &[PathBuf]) -> Result<Option<FileChange>, AdapterError> {
    if dir.join(SKILL_FILE).exists() && check_owned(dir).is_err() {
        return Ok(Some(FileChange {
            path: dir.to_path_buf(),
            action: crate::install::ChangeAction::Kept,
        }));
    }
    uninstall_tree(dir, &[SKILL_FILE], keep)
}

/// Doctor's view of the skill tree.
pub fn diagnose(dir: &Path, acc_executable: &Path) -> Diagnostic {
    use crate::hook_config::{error, ok, warn};
    let file = dir.join(SKILL_FILE);
    match read_optional(&file) {
        Ok(Some(bytes)) if bytes == render(acc_executable).as_bytes() => ok(format!(
            "{}: the acc skill as install writes it",
            file.display()
        )),
        Ok(Some(_)) => warn(format!(
            "{} differs from the skill this acc writes (edited, or written by another acc)",
            file.display()
        )),
        Ok(None) => error(format!(
            "{} is missing, so the agent is not taught the acc commands",
            file.display()
        )),
        Err(e) => error(e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skill_names_itself_and_quotes_acc_everywhere() {
        let text = render(Path::new("/opt/my tools/acc"));
        assert!(text.starts_with("---\nname: acc\ndescription: "));
        assert!(!text.contains(ACC_PLACEHOLDER));
        assert!(text.contains("\"/opt/my tools/acc\" claim --resource"));
        for command in [
            "status", "claim", "release", "message", "request", "inbox", "reply", "ack", "finish",
        ] {
            assert!(
                text.contains(&format!("\"/opt/my tools/acc\" {command} ")),
                "{command}"
            );
        }
        assert!(text.contains("ACC CLI (append):"));
    }

    #[test]
    fn the_frontmatter_is_what_clients_list() {
        let text = render(Path::new("/a/acc"));
        let front: Vec<&str> = text.split("---\n").nth(1).unwrap().lines().collect();
        assert_eq!(front.len(), 2);
        assert_eq!(front[0], "name: acc");
        assert!(front[1].starts_with("description: Coordinate with the other coding agents"));
    }

    #[test]
    fn a_users_own_acc_skill_is_a_conflict() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("acc");
        check_owned(&tree).unwrap();
        install(&tree, Path::new("/a/acc")).unwrap();
        check_owned(&tree).unwrap();
        std::fs::write(
            tree.join(SKILL_FILE),
            "---\nname: acc\ndescription: my own\n---\n",
        )
        .unwrap();
        let err = check_owned(&tree).unwrap_err();
        assert_eq!(err.kind, crate::adapter::AdapterErrorKind::Conflict);
        let kept = uninstall(&tree, &[]).unwrap().unwrap();
        assert_eq!(kept.action, crate::install::ChangeAction::Kept);
        assert!(tree.join(SKILL_FILE).exists(), "never someone else's skill");
    }

    #[test]
    fn install_uninstall_and_diagnose() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("skills").join(SKILL_NAME);
        let acc = Path::new("/a/acc");
        assert_eq!(
            diagnose(&tree, acc).level,
            crate::install::DiagnosticLevel::Error
        );
        install(&tree, acc).unwrap();
        assert_eq!(
            diagnose(&tree, acc).level,
            crate::install::DiagnosticLevel::Ok
        );
        assert_eq!(
            diagnose(&tree, Path::new("/b/acc")).level,
            crate::install::DiagnosticLevel::Warn
        );
        uninstall(&tree, &[]).unwrap();
        assert!(!tree.exists());
    }
}
