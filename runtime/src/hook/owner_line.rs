//! The identity lines that open every context a hook injects: the owner line (the exact
//! arguments a session's `acc` calls must carry, since the CLI never infers its caller) and
//! the participant id peers address the session by.
//!
//! They are shown from a session's first injection (the startup context where the client is
//! certified for it, else its first turn) and repeated at every turn: a compaction may drop
//! any earlier turn, and the lines cost under 200 bytes. They carry nothing a peer wrote.

use crate::core::Owner;
use crate::ids::ParticipantId;

/// The start of the line that names the session's own participant id.
pub const YOU_ARE: &str = "ACC you are: ";

/// Who a hooked session is: the owner its `acc` calls carry and the participant it acts as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub owner: Owner,
    pub participant: ParticipantId,
}

impl Identity {
    /// The owner line, then `ACC you are: <participant>` on a line of its own, so the owner
    /// line stays one an agent can append verbatim.
    pub fn lines(&self, cwd: &str) -> String {
        format!(
            "{}\n{YOU_ARE}{}",
            owner_line(&self.owner, cwd),
            self.participant
        )
    }
}

/// Quotes `s` for a POSIX shell: inside single quotes everything is literal, and a single
/// quote is written as `'\''`.
pub fn shell_single_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `ACC CLI (append): --session <id> --generation <g> --cwd '<cwd>'`.
pub fn owner_line(owner: &Owner, cwd: &str) -> String {
    format!(
        "ACC CLI (append): --session {} --generation {} --cwd {}",
        owner.session,
        owner.generation,
        shell_single_quote(cwd)
    )
}

/// What the line costs in a projector budget: its bytes plus the newline after it.
pub fn cost(line: &str) -> usize {
    line.len() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{Generation, SessionId};

    #[cfg(unix)]
    #[test]
    fn quotes_survive_a_shell_round_trip() {
        assert_eq!(shell_single_quote("/w"), "'/w'");
        assert_eq!(shell_single_quote("/it's here"), r"'/it'\''s here'");
        let quoted = shell_single_quote("/a b/it's $HOME `x`");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf %s {quoted}"))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "/a b/it's $HOME `x`"
        );
    }

    #[test]
    fn the_identity_names_the_participant_on_its_own_line() {
        let identity = Identity {
            owner: Owner::new(
                SessionId::parse("session_a").unwrap(),
                Generation::parse("generation_b").unwrap(),
            ),
            participant: ParticipantId::parse("codex-2").unwrap(),
        };
        assert_eq!(
            identity.lines("/w"),
            "ACC CLI (append): --session session_a --generation generation_b --cwd '/w'\n\
             ACC you are: codex-2"
        );
    }

    #[test]
    fn the_line() {
        let owner = Owner::new(
            SessionId::parse("session_a").unwrap(),
            Generation::parse("generation_b").unwrap(),
        );
        let line = owner_line(&owner, "/w/it's");
        assert_eq!(
            line,
            r"ACC CLI (append): --session session_a --generation generation_b --cwd '/w/it'\''s'"
        );
        assert_eq!(cost(&line), line.len() + 1);
    }
}
