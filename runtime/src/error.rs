//! The one error type of the runtime. Every failure carries a stable string code and maps,
//! in exactly one place ([`ErrorCode::exit_class`]), to the exit-code contract:
//! 0 ok, 2 usage, 3 timeout, 4 data or incompatible state, 5 conflict, 6 attention.

use serde_json::{Map, Value};
use std::fmt;

/// The exit-code classes. The numbers are a public contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitClass {
    Usage = 2,
    Timeout = 3,
    Data = 4,
    Conflict = 5,
    Attention = 6,
}

/// Stable error codes. The string form (`as_str`) is part of the JSON contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A flag, value or argument combination is invalid.
    InvalidArgument,
    /// A text field breaks the line/prose/summary rules.
    InvalidText,
    /// A resource URI is malformed or uses a refused wildcard.
    InvalidResource,
    /// A cursor is not a 16-digit sequence (or not a known message id).
    InvalidCursor,
    /// No session owner was given where one is required.
    CallerIdentityUnresolved,
    /// A recipient name matches several live participants of one client.
    AmbiguousRecipient,
    /// The same recipient was named twice.
    DuplicateRecipient,
    /// The data home lies inside a workspace root.
    DataHomeInsideWorkspace,
    /// The data home exists but is not a directory.
    DataHomeNotDirectory,
    /// `acc config init` without a terminal and without `--yes`.
    ConfirmationRequired,
    /// `acc.workspace.json` is unreadable or breaks its schema.
    WorkspaceConfigInvalid,
    /// A recipient or referenced participant does not exist.
    UnknownParticipant,
    /// A referenced record (session, message, claim) does not exist.
    NotFound,
    /// The store file is not a readable database of ours.
    StoreCorrupt,
    /// The store was written by a newer schema.
    StoreSchemaNewer,
    /// The store belongs to another workspace.
    StoreForeign,
    /// An I/O or SQL failure that is neither corruption nor contention.
    StoreIo,
    /// The store stayed locked past the busy timeout.
    StoreBusy,
    /// The workspace's shared store (a PostgreSQL server) cannot be reached.
    StoreUnreachable,
    /// A live overlapping claim of another session blocks this one.
    ClaimConflict,
    /// The session's current generation differs from the one given.
    GenerationMismatch,
    /// The session is closed.
    SessionClosed,
    /// The session id is unknown.
    SessionUnknown,
    /// Reopening an open session whose process is not confirmed dead.
    SessionInUse,
    /// A receipt would move backwards.
    ReceiptBackward,
    /// `ack` on a message that still needs a reply.
    ReplyRequired,
    /// The message is not addressed to the caller.
    NotAddressed,
    /// A `clientMessageId` was reused with different content.
    ClientMessageConflict,
    /// Releasing a claim of another session without an authority.
    NotClaimOwner,
    /// `--authority` from a caller that is not shown to be a person: no terminal, or an
    /// ancestor process is the client of a hooked session.
    AuthorityNeedsPerson,
    /// An agent (a process under a hooked client) named a session that is not its own, or
    /// ran a command only a person may run.
    AgentActsAsAnother,
    /// A takeover is not held (already settled, or done at once): nothing to confirm.
    TakeoverNotHeld,
    /// A session that attached under a live participant's name while that is held acts
    /// no further until its owner or a person confirms.
    TakeoverHeld,
    /// An existing file would be overwritten without `--force`.
    AlreadyExists,
    /// `config init` while sessions are attached, without `--force`.
    SessionsAttached,
    /// The `acc-hook` executable hook commands run is missing or not executable.
    HookExecutableMissing,
    /// A user's client config is malformed; nothing was written.
    MalformedUserFile,
    /// The install record is unreadable or of an unknown schema.
    InstallRecordCorrupt,
    /// Reading or writing an installed file failed.
    InstallIo,
    /// acc's wiring would overwrite something acc did not write.
    InstallConflict,
    /// An adapter refused an uninstall before anything was touched.
    UninstallRefused,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::InvalidText => "invalid_text",
            ErrorCode::InvalidResource => "invalid_resource",
            ErrorCode::InvalidCursor => "invalid_cursor",
            ErrorCode::CallerIdentityUnresolved => "caller_identity_unresolved",
            ErrorCode::AmbiguousRecipient => "ambiguous_recipient",
            ErrorCode::DuplicateRecipient => "duplicate_recipient",
            ErrorCode::DataHomeInsideWorkspace => "data_home_inside_workspace",
            ErrorCode::DataHomeNotDirectory => "data_home_not_directory",
            ErrorCode::ConfirmationRequired => "confirmation_required",
            ErrorCode::WorkspaceConfigInvalid => "workspace_config_invalid",
            ErrorCode::UnknownParticipant => "unknown_participant",
            ErrorCode::NotFound => "not_found",
            ErrorCode::StoreCorrupt => "store_corrupt",
            ErrorCode::StoreSchemaNewer => "store_schema_newer",
            ErrorCode::StoreForeign => "store_foreign",
            ErrorCode::StoreIo => "store_io",
            ErrorCode::StoreBusy => "store_busy",
            ErrorCode::StoreUnreachable => "store_unreachable",
            ErrorCode::ClaimConflict => "claim_conflict",
            ErrorCode::GenerationMismatch => "generation_mismatch",
            ErrorCode::SessionClosed => "session_closed",
            ErrorCode::SessionUnknown => "session_unknown",
            ErrorCode::SessionInUse => "session_in_use",
            ErrorCode::ReceiptBackward => "receipt_backward",
            ErrorCode::ReplyRequired => "reply_required",
            ErrorCode::NotAddressed => "not_addressed",
            ErrorCode::ClientMessageConflict => "client_message_conflict",
            ErrorCode::NotClaimOwner => "not_claim_owner",
            ErrorCode::AuthorityNeedsPerson => "authority_needs_person",
            ErrorCode::AgentActsAsAnother => "agent_acts_as_another",
            ErrorCode::TakeoverNotHeld => "takeover_not_held",
            ErrorCode::TakeoverHeld => "takeover_held",
            ErrorCode::AlreadyExists => "already_exists",
            ErrorCode::SessionsAttached => "sessions_attached",
            ErrorCode::HookExecutableMissing => "hook_executable_missing",
            ErrorCode::MalformedUserFile => "malformed_user_file",
            ErrorCode::InstallRecordCorrupt => "install_record_corrupt",
            ErrorCode::InstallIo => "install_io",
            ErrorCode::InstallConflict => "install_conflict",
            ErrorCode::UninstallRefused => "uninstall_refused",
        }
    }

    /// The single mapping from error codes to exit classes.
    pub fn exit_class(self) -> ExitClass {
        use ErrorCode::*;
        match self {
            InvalidArgument
            | InvalidText
            | InvalidResource
            | InvalidCursor
            | CallerIdentityUnresolved
            | AmbiguousRecipient
            | DuplicateRecipient
            | DataHomeInsideWorkspace
            | DataHomeNotDirectory
            | ConfirmationRequired => ExitClass::Usage,
            StoreBusy => ExitClass::Timeout,
            WorkspaceConfigInvalid
            | UnknownParticipant
            | NotFound
            | StoreCorrupt
            | StoreSchemaNewer
            | StoreForeign
            | StoreIo
            | StoreUnreachable
            | HookExecutableMissing
            | MalformedUserFile
            | InstallRecordCorrupt
            | InstallIo => ExitClass::Data,
            ClaimConflict
            | GenerationMismatch
            | SessionClosed
            | SessionUnknown
            | SessionInUse
            | ReceiptBackward
            | ReplyRequired
            | NotAddressed
            | ClientMessageConflict
            | NotClaimOwner
            | AuthorityNeedsPerson
            | AgentActsAsAnother
            | TakeoverNotHeld
            | TakeoverHeld
            | AlreadyExists
            | SessionsAttached
            | InstallConflict
            | UninstallRefused => ExitClass::Conflict,
        }
    }
}

/// An error with a stable code, a one-line human message and structured details.
#[derive(Debug, Clone, PartialEq)]
pub struct AccError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Map<String, Value>,
}

pub type Result<T, E = AccError> = std::result::Result<T, E>;

impl AccError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AccError {
            code,
            message: one_line(&message.into()),
            details: Map::new(),
        }
    }

    /// Adds one detail; chained at construction sites.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), value.into());
        self
    }

    pub fn exit_code(&self) -> i32 {
        self.code.exit_class() as i32
    }

    pub fn usage(message: impl Into<String>) -> Self {
        AccError::new(ErrorCode::InvalidArgument, message)
    }
}

/// Error messages are printed as exactly one line, whatever their source said.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\n' || c == '\r' {
            out.push(' ');
        } else if c.is_control() {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.trim_end().to_string()
}

impl fmt::Display for AccError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AccError {}

/// The start of the message of a SQL failure that is neither corruption nor contention; the
/// store replaces it with one naming its file.
pub const SQL_ERROR_PREFIX: &str = "acc store error: ";

impl From<rusqlite::Error> for AccError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode as Sql;
        if let rusqlite::Error::ToSqlConversionFailure(inner) = &e
            && let Some(away) = inner.downcast_ref::<crate::store::engine::postgres::Unreachable>()
        {
            return AccError::new(
                ErrorCode::StoreUnreachable,
                format!(
                    "the acc store server is unreachable: {away}; check that the server runs and ACC_STORE_URL (or store in acc.workspace.json) names it"
                ),
            );
        }
        let code = match e.sqlite_error_code() {
            Some(Sql::DatabaseBusy) | Some(Sql::DatabaseLocked) => ErrorCode::StoreBusy,
            Some(Sql::DatabaseCorrupt) | Some(Sql::NotADatabase) => ErrorCode::StoreCorrupt,
            _ => ErrorCode::StoreIo,
        };
        let message = match code {
            ErrorCode::StoreBusy => "the acc store stayed locked past its busy timeout".to_string(),
            ErrorCode::StoreCorrupt => format!("the acc store is corrupt: {e}"),
            _ => format!("{SQL_ERROR_PREFIX}{e}"),
        };
        AccError::new(code, message)
    }
}

impl From<std::io::Error> for AccError {
    fn from(e: std::io::Error) -> Self {
        AccError::new(ErrorCode::StoreIo, format!("i/o error: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_follow_the_contract() {
        assert_eq!(AccError::usage("x").exit_code(), 2);
        assert_eq!(AccError::new(ErrorCode::StoreBusy, "x").exit_code(), 3);
        assert_eq!(
            AccError::new(ErrorCode::StoreSchemaNewer, "x").exit_code(),
            4
        );
        assert_eq!(AccError::new(ErrorCode::ClaimConflict, "x").exit_code(), 5);
        assert_eq!(
            AccError::new(ErrorCode::GenerationMismatch, "x").exit_code(),
            5
        );
        assert_eq!(AccError::new(ErrorCode::ReplyRequired, "x").exit_code(), 5);
    }

    #[test]
    fn messages_are_one_line_and_controls_are_escaped() {
        let e = AccError::usage("first\nsecond\u{7}");
        assert_eq!(e.message, "first second\\u0007");
    }

    #[test]
    fn codes_have_distinct_strings() {
        use std::collections::HashSet;
        let all = [
            ErrorCode::InvalidArgument,
            ErrorCode::InvalidText,
            ErrorCode::InvalidResource,
            ErrorCode::InvalidCursor,
            ErrorCode::CallerIdentityUnresolved,
            ErrorCode::AmbiguousRecipient,
            ErrorCode::DuplicateRecipient,
            ErrorCode::DataHomeInsideWorkspace,
            ErrorCode::DataHomeNotDirectory,
            ErrorCode::ConfirmationRequired,
            ErrorCode::WorkspaceConfigInvalid,
            ErrorCode::UnknownParticipant,
            ErrorCode::NotFound,
            ErrorCode::StoreCorrupt,
            ErrorCode::StoreSchemaNewer,
            ErrorCode::StoreForeign,
            ErrorCode::StoreIo,
            ErrorCode::StoreBusy,
            ErrorCode::StoreUnreachable,
            ErrorCode::ClaimConflict,
            ErrorCode::GenerationMismatch,
            ErrorCode::SessionClosed,
            ErrorCode::SessionUnknown,
            ErrorCode::SessionInUse,
            ErrorCode::ReceiptBackward,
            ErrorCode::ReplyRequired,
            ErrorCode::NotAddressed,
            ErrorCode::ClientMessageConflict,
            ErrorCode::NotClaimOwner,
            ErrorCode::AuthorityNeedsPerson,
            ErrorCode::AgentActsAsAnother,
            ErrorCode::AlreadyExists,
            ErrorCode::SessionsAttached,
        ];
        let strings: HashSet<_> = all.iter().map(|c| c.as_str()).collect();
        assert_eq!(strings.len(), all.len());
    }
}
