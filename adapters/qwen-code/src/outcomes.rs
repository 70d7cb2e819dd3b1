//! How Qwen Code is answered: Claude Code's `hookSpecificOutput` envelope
//! ([`acc_sdk::claude_hooks::deny`] and [`acc_sdk::claude_hooks::inject`]), which 0.24.4
//! reads for both refusing a tool and adding context (`additionalContext`, which it
//! escapes `<` and `>` in before the model sees it).

pub use acc_sdk::claude_hooks::{deny, inject};
