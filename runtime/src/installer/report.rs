//! What an install or uninstall run did (or, dry, would do), file by file: the value the
//! CLI prints as text or JSON.

use std::path::{Path, PathBuf};

use acc_sdk::install::ChangeAction;
use serde::Serialize;

use super::record::RecordedKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunAction {
    Install,
    Uninstall,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    pub action: RunAction,
    pub dry_run: bool,
    /// The adapters acted on, sorted by id.
    pub adapters: Vec<AdapterOutcome>,
    /// Adapters left alone, and why.
    pub skipped: Vec<Skip>,
    /// The command that undoes this run, when it changed anything.
    pub undo: Option<String>,
    /// The `--home` the user passed, repeated in every command the output suggests.
    #[serde(skip)]
    pub home: Option<PathBuf>,
    /// Install only: the data home the hooks use, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_home: Option<super::wiring::DataHomeChoice>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterOutcome {
    pub adapter_id: String,
    pub display_name: String,
    /// What detection found (install only: uninstall works from the record whether or not
    /// the client is still here).
    pub client: Option<ClientFacts>,
    pub files: Vec<FileOutcome>,
    /// Steps only the user can take.
    pub needs_action: Vec<String>,
}

/// What detection found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientFacts {
    pub present: bool,
    pub version: Option<String>,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileOutcome {
    pub path: PathBuf,
    pub kind: RecordedKind,
    pub action: FileAction,
    /// Why, when the action needs explaining (`kept`, a structural `edited`).
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileAction {
    Created,
    Edited,
    Unchanged,
    /// A user file given back its original bytes.
    Restored,
    Removed,
    /// Left in place because it changed since acc wrote it.
    Kept,
    /// Already gone.
    Missing,
    /// A user file acc cannot read any more (malformed since install, replaced by a
    /// directory): left exactly as it is; the note says why and how to finish.
    Refused,
}

impl FileAction {
    /// The verb, as the human output prints it.
    pub fn verb(self) -> &'static str {
        match self {
            FileAction::Created => "create",
            FileAction::Edited => "edit",
            FileAction::Unchanged => "leave unchanged",
            FileAction::Restored => "restore",
            FileAction::Removed => "remove",
            FileAction::Kept => "keep",
            FileAction::Missing => "find missing",
            FileAction::Refused => "refuse",
        }
    }

    pub fn past(self) -> &'static str {
        match self {
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
}

impl RunReport {
    /// The files this run refused, with their notes.
    pub fn refused(&self) -> Vec<(&AdapterOutcome, &FileOutcome)> {
        self.adapters
            .iter()
            .flat_map(|a| a.files.iter().map(move |f| (a, f)))
            .filter(|(_, f)| f.action == FileAction::Refused)
            .collect()
    }
}

impl From<ChangeAction> for FileAction {
    fn from(action: ChangeAction) -> Self {
        match action {
            ChangeAction::Created => FileAction::Created,
            ChangeAction::Edited => FileAction::Edited,
            ChangeAction::Removed => FileAction::Removed,
            ChangeAction::Kept => FileAction::Kept,
            ChangeAction::Unchanged => FileAction::Unchanged,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skip {
    pub adapter_id: String,
    pub reason: String,
}

/// `acc uninstall --adapter a --adapter b [--home DIR]` (or `acc install ...`) for `ids`,
/// carrying the `--home` the user passed so the suggestion acts on the same home.
pub fn command_for(verb: &str, ids: &[String], home: Option<&Path>) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let flags: Vec<String> = ids.iter().map(|id| format!("--adapter {id}")).collect();
    Some(format!("acc {verb} {}{}", flags.join(" "), home_flag(home)))
}

/// ` --home DIR` (quoted for a POSIX shell when it needs to be), or nothing.
pub fn home_flag(home: Option<&Path>) -> String {
    let Some(home) = home else {
        return String::new();
    };
    let text = home.to_string_lossy();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c));
    if plain {
        format!(" --home {text}")
    } else {
        format!(" --home {}", acc_sdk::hook_command::shell_quote(home))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_commands_carry_the_home_the_user_passed() {
        let ids = ["claude-code".to_owned(), "codex".to_owned()];
        assert_eq!(
            command_for("uninstall", &ids, None).unwrap(),
            "acc uninstall --adapter claude-code --adapter codex"
        );
        assert_eq!(
            command_for("uninstall", &ids[..1], Some(Path::new("/tmp/box"))).unwrap(),
            "acc uninstall --adapter claude-code --home /tmp/box"
        );
        assert_eq!(
            home_flag(Some(Path::new("/tmp/my box/$x"))),
            " --home \"/tmp/my box/\\$x\""
        );
        assert_eq!(command_for("install", &[], Some(Path::new("/h"))), None);
    }
}
