//! The guard's answer to an agent's shell call that asserts an authority
//! (`acc release … --authority …`): a deny that says to ask the user.
//!
//! `acc release` refuses such a caller itself ([`crate::cli::person`]); denying the call
//! before it runs gives the model the reason in its own turn instead of an exit code.
//!
//! The normalised event carries no command text, and reading a payload field by name would
//! make the runtime know a client's shape. So every string value of a shell call's payload
//! is scanned (bounded) for the words `acc`, `release` and `--authority` in that order,
//! `acc` as a command word (any directory before it). Quoted inside another command (a
//! commit message that cites it) this also denies; the reason says how to proceed.

use super::call::Call;
use super::shell_words::{payload_texts, program, words};
use acc_sdk::event::ToolClass;
use serde_json::Value;

/// The deny reason.
pub const AUTHORITY_REASON: &str = "acc: an agent cannot assert an authority: `acc release --authority` works only for a person at their own terminal. Ask the user to run it, or message the claim's owner to release it";

/// The deny reason for a shell call that asserts an authority, else `None`.
pub fn deny_reason(call: &Call) -> Option<&'static str> {
    let shell = call
        .event
        .tool
        .as_ref()
        .is_some_and(|t| t.class == ToolClass::Shell);
    (shell && asserts_authority(call.payload)).then_some(AUTHORITY_REASON)
}

/// Whether any string in `payload` runs `acc release … --authority`.
pub fn asserts_authority(payload: &Value) -> bool {
    payload_texts(payload).iter().any(|t| mentions(t))
}

/// `acc` (as a path's last component), later `release`, later `--authority[=…]`.
fn mentions(text: &str) -> bool {
    let words = words(text);
    let mut stage = 0;
    for w in words {
        stage = match stage {
            0 if program(&w) == "acc" => 1,
            1 if w == "release" => 2,
            2 if w == "--authority" || w.starts_with("--authority=") => return true,
            s => s,
        };
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spellings_of_a_forced_release_are_found_anywhere_in_the_payload() {
        for cmd in [
            "acc release --claim claim_x --authority human",
            "cd /w && ./target/debug/acc release --claim c --authority=policy",
            "true; /usr/local/bin/acc   release\t--claim c --reason 'x' --authority human",
            "bash -c 'acc release --claim c --authority human'",
            "ACC_SESSION=x \"acc\" \"release\" --claim c \"--authority\" human",
        ] {
            let payload = json!({"tool_input": {"command": cmd}});
            assert!(asserts_authority(&payload), "{cmd}");
            let argv = json!({"args": {"command": cmd.split(' ').collect::<Vec<_>>()}});
            assert!(asserts_authority(&argv), "{cmd} as argv");
        }
    }

    #[test]
    fn ordinary_commands_are_not_taken_for_one() {
        for cmd in [
            "acc release --resource 'file:src/**'",
            "acc status --json",
            "grep -r authority docs",
            "cargo test -p acc-runtime --test cli_authority",
            "release --authority human",
            "accrelease --authority x",
        ] {
            assert!(!asserts_authority(&json!({"command": cmd})), "{cmd}");
        }
    }
}
