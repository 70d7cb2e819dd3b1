//! What a handler decided: the client-shaped outcome, the offers to commit once it was
//! written, and the runtime's own stderr notes.

use crate::core::Owner;
use crate::ids::MessageId;
use acc_sdk::outcome::HookOutcome;

/// Messages shown in this answer's stdout, to be committed as `offered` after it was
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offers {
    pub owner: Owner,
    pub message_ids: Vec<MessageId>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    pub outcome: HookOutcome,
    /// `None` unless stdout carries peer bodies.
    pub offers: Option<Offers>,
    /// Lines for stderr after the outcome's own stderr, each without its newline. Never peer
    /// text.
    pub notes: Vec<String>,
    /// The payload to write the conversation's due heartbeat with once the answer is out,
    /// in a process of its own ([`super::runner`]): the guard's fast path proved an allow
    /// from the snapshot, and the heartbeat alone needs the store.
    pub deferred_beat: Option<Vec<u8>>,
}

impl Answer {
    /// Allow, say nothing.
    pub fn silent() -> Self {
        Answer::default()
    }

    pub fn of(outcome: HookOutcome) -> Self {
        Answer {
            outcome,
            ..Answer::default()
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The bytes for stderr: the outcome's own, then the notes, one per line.
    pub fn stderr_text(&self) -> String {
        let mut out = self.outcome.stderr.clone();
        for note in &self.notes {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(note);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_follow_the_outcome_on_their_own_lines() {
        let a = Answer::of(HookOutcome {
            stdout: String::new(),
            stderr: "denied".into(),
            exit_code: 2,
        })
        .with_note("acc: one")
        .with_note("acc: two");
        assert_eq!(a.stderr_text(), "denied\nacc: one\nacc: two\n");
        assert_eq!(Answer::silent().stderr_text(), "");
        assert_eq!(Answer::silent().with_note("n").stderr_text(), "n\n");
    }
}
