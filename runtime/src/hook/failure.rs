//! Why a hook failed open, as stable reason codes.
//!
//! A failed hook must never block the client and never leak anything: the one stderr line
//! carries a fixed sentence and a code from this module, never raw error text and never
//! peer text.

use crate::error::{AccError, ErrorCode};
use acc_sdk::event::NormalizeError;

/// The fixed sentence of every fail-open answer.
pub const FAIL_OPEN_PREFIX: &str = "acc: coordination unavailable; hook continued without context";

/// Diagnostics a hook prints are capped at this many bytes.
pub const MAX_DIAGNOSTIC_BYTES: usize = 512;

/// Every reason a hook invocation can fail open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The command line names no adapter, or an option is malformed.
    Usage,
    /// No shipped adapter has this id.
    UnknownAdapter,
    /// The payload exceeds [`super::payload::MAX_PAYLOAD_BYTES`].
    PayloadTooLarge,
    /// stdin could not be read.
    PayloadUnreadable,
    /// The payload is not UTF-8.
    PayloadNotUtf8,
    /// The payload is not one JSON value.
    PayloadNotJson,
    /// The adapter refused the payload.
    Refused(Refusal),
    /// No data home could be located.
    DataHome,
    /// The core (discovery, store, a session operation) returned an error with this code.
    Core(ErrorCode),
    /// The deadline passed.
    Timeout,
    /// The worker panicked.
    Panic,
}

/// How an adapter refused a payload (mirrors [`NormalizeError`] without its text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    ForeignShape,
    UnknownEvent,
    MissingSessionId,
    MissingCwd,
    InvalidField,
}

impl From<&NormalizeError> for Refusal {
    fn from(e: &NormalizeError) -> Self {
        match e {
            NormalizeError::ForeignShape(_) => Refusal::ForeignShape,
            NormalizeError::UnknownEvent(_) => Refusal::UnknownEvent,
            NormalizeError::MissingSessionId => Refusal::MissingSessionId,
            NormalizeError::MissingCwd => Refusal::MissingCwd,
            NormalizeError::InvalidField { .. } => Refusal::InvalidField,
        }
    }
}

impl From<AccError> for Failure {
    fn from(e: AccError) -> Self {
        Failure::Core(e.code)
    }
}

impl Failure {
    /// The stable code printed in the fail-open line.
    pub fn code(self) -> &'static str {
        match self {
            Failure::Usage => "usage",
            Failure::UnknownAdapter => "unknown_adapter",
            Failure::PayloadTooLarge => "payload_too_large",
            Failure::PayloadUnreadable => "payload_unreadable",
            Failure::PayloadNotUtf8 => "payload_not_utf8",
            Failure::PayloadNotJson => "payload_not_json",
            Failure::Refused(r) => match r {
                Refusal::ForeignShape => "payload_foreign",
                Refusal::UnknownEvent => "event_unknown",
                Refusal::MissingSessionId => "event_missing_session_id",
                Refusal::MissingCwd => "event_missing_cwd",
                Refusal::InvalidField => "event_invalid_field",
            },
            Failure::DataHome => "data_home_unavailable",
            Failure::Core(code) => code.as_str(),
            Failure::Timeout => "timeout",
            Failure::Panic => "internal_panic",
        }
    }

    /// The single stderr line of a fail-open answer, newline included.
    pub fn line(self) -> String {
        let line = format!("{FAIL_OPEN_PREFIX} ({})\n", self.code());
        debug_assert!(line.len() <= MAX_DIAGNOSTIC_BYTES);
        line
    }
}

/// Cuts a diagnostic to [`MAX_DIAGNOSTIC_BYTES`] on a character boundary, keeping a final
/// newline.
pub fn cap_diagnostic(text: &str) -> String {
    if text.len() <= MAX_DIAGNOSTIC_BYTES {
        return text.to_string();
    }
    let mut end = MAX_DIAGNOSTIC_BYTES - 1;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_one_short_line_with_a_code() {
        let all = [
            Failure::Usage,
            Failure::UnknownAdapter,
            Failure::PayloadTooLarge,
            Failure::PayloadUnreadable,
            Failure::PayloadNotUtf8,
            Failure::PayloadNotJson,
            Failure::Refused(Refusal::ForeignShape),
            Failure::Refused(Refusal::UnknownEvent),
            Failure::Refused(Refusal::MissingSessionId),
            Failure::Refused(Refusal::MissingCwd),
            Failure::Refused(Refusal::InvalidField),
            Failure::DataHome,
            Failure::Core(ErrorCode::StoreCorrupt),
            Failure::Timeout,
            Failure::Panic,
        ];
        let mut codes = std::collections::BTreeSet::new();
        for f in all {
            let line = f.line();
            assert!(line.starts_with(FAIL_OPEN_PREFIX), "{line}");
            assert_eq!(line.matches('\n').count(), 1);
            assert!(line.ends_with(&format!("({})\n", f.code())));
            assert!(line.len() <= MAX_DIAGNOSTIC_BYTES);
            assert!(codes.insert(f.code()), "duplicate code {}", f.code());
        }
    }

    #[test]
    fn core_errors_keep_only_their_code() {
        let e = AccError::new(ErrorCode::StoreBusy, "secret path /home/x and peer text");
        let line = Failure::from(e).line();
        assert!(line.ends_with("(store_busy)\n"));
        assert!(!line.contains("secret"));
    }

    #[test]
    fn diagnostics_are_capped_on_a_char_boundary() {
        let long = "é".repeat(400);
        let capped = cap_diagnostic(&long);
        assert!(capped.len() <= MAX_DIAGNOSTIC_BYTES);
        assert!(capped.ends_with('\n'));
        assert_eq!(cap_diagnostic("short\n"), "short\n");
    }
}
