//! The owner line prepended to injected context: the exact arguments a session's `acc`
//! calls must carry, since the CLI never infers its caller.

use crate::core::Owner;

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
