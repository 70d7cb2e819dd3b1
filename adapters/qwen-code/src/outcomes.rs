//! How Qwen Code is answered: Claude Code's `hookSpecificOutput` envelope
//! ([`acc_sdk::claude_hooks::deny`] and [`acc_sdk::claude_hooks::inject`]), which 0.24.4
//! reads for both refusing a tool and adding context (`additionalContext`, which it
//! escapes `<` and `>` in before the model sees it).

use acc_sdk::outcome::HookOutcome;

pub use acc_sdk::claude_hooks::inject;

/// What marks a refusal in the tool's result. Qwen Code 0.24.4 hands the model a deny's
/// reason as the whole tool result, with nothing saying the call was refused (Claude Code
/// adds its own "hook error" line), so a model read the reason as the write's output and
/// went on (the coordinate capture's asker); the marker is what tells it the call did not run.
pub const REFUSAL_MARKER: &str = "blocked by acc: ";

/// Refuses a tool call: the Claude-shaped deny with the reason marked as a refusal.
pub fn deny(reason: &str) -> HookOutcome {
    acc_sdk::claude_hooks::deny(&format!("{REFUSAL_MARKER}{reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_says_it_is_one_before_its_reason() {
        let out = deny("src/a.rs is claimed by codex-x1");
        let line: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(
            line["hookSpecificOutput"]["permissionDecisionReason"],
            "blocked by acc: src/a.rs is claimed by codex-x1"
        );
    }
}
