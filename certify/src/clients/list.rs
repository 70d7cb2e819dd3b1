//! The clients the recorder knows: one line per adapter folder holding a `recorder.toml`.
//! Adding a client is its `adapters/<id>/recorder.toml` plus one line here.
//!
//! What is code rather than data stays a hook point keyed by the client's id, named where it
//! lives: Claude Code's interactive settings (`record::kit::terminal::stage`), its place in
//! every coordinate pair and its `allow_acc` permission rule
//! (`record::scenarios::coordinate`), and Codex's hook trust and detached daemon in its
//! terminal interface (`record::scenarios::interactive_quit::prepare_codex`,
//! `record::scenarios::live_wake::codex`).

/// `(adapter id, recorder.toml text)`, in the order `--client all` records them. One line
/// each (unformatted) so that adding a client is one line.
#[rustfmt::skip]
pub const RECORDER_FILES: &[(&str, &str)] = &[
    ("claude-code", include_str!("../../../adapters/claude-code/recorder.toml")),
    ("codex", include_str!("../../../adapters/codex/recorder.toml")),
    ("gemini-cli", include_str!("../../../adapters/gemini-cli/recorder.toml")),
    ("grok", include_str!("../../../adapters/grok/recorder.toml")),
    ("kimi-code", include_str!("../../../adapters/kimi-code/recorder.toml")),
    ("opencode", include_str!("../../../adapters/opencode/recorder.toml")),
    ("copilot", include_str!("../../../adapters/copilot/recorder.toml")),
    ("qwen-code", include_str!("../../../adapters/qwen-code/recorder.toml")),
];
