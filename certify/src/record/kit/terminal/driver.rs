//! Which clients' terminal interfaces the recorder can drive, and how.

use crate::clients::Client;

/// How the recorder drives one client's terminal interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Driver {
    /// What the person types to leave.
    pub quit: &'static str,
    /// Text the interface shows once it takes input.
    pub ready: &'static str,
}

/// The clients whose terminal interface the recorder knows how to drive.
pub fn driver(client: Client) -> Option<Driver> {
    match client {
        Client::Codex => Some(Driver {
            quit: "/quit",
            ready: "Ask Codex",
        }),
        Client::ClaudeCode => Some(Driver {
            quit: "/exit",
            ready: "shift+tab to cycle",
        }),
        Client::GeminiCli => Some(Driver {
            quit: "/quit",
            ready: "Type your message",
        }),
        // 1.18.33's prompt reads `Ask anything… "<a suggestion>"`; `/exit` leaves.
        Client::OpenCode => Some(Driver {
            quit: "/exit",
            ready: "Ask anything",
        }),
        _ => None,
    }
}
