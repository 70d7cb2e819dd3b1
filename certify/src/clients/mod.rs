//! Obtaining real clients from their public registries and running them in a sandbox.
//!
//! ```no_run
//! use acc_certify::clients::{Client, Sandbox, obtain, run_headless};
//! use acc_certify::doubles::{ModelDouble, Script};
//! use std::time::Duration;
//!
//! let client = Client::Codex;
//! let installed = obtain(client, client.pinned_version())?;
//! let sandbox = Sandbox::new(client)?;
//! let target = sandbox.workspace().join("hello.txt");
//! let double = ModelDouble::start(client.protocol(), Script::write_file(&target, "hi\n").unwrap()).unwrap();
//! sandbox.write_base_config(double.port())?;
//! // ... run acc's installer with sandbox.env() here ...
//! let output = run_headless(&installed, &sandbox, double.port(), "write hello", Duration::from_secs(120))?;
//! println!("{:?} in {:?}; {} model requests", output.exit_code(), output.duration, double.requests().len());
//! # Ok::<(), acc_certify::clients::ClientError>(())
//! ```

pub mod base_config;
pub mod cache;
pub mod config_files;
pub mod environment;
pub mod error;
pub mod network;
pub mod obtain;
pub mod offline;
pub mod pins;
pub mod process;
pub mod run;
pub mod sandbox;
pub mod version;

use std::fmt;
use std::str::FromStr;

use crate::doubles::Protocol;

pub use cache::Cache;
pub use error::ClientError;
pub use obtain::{InstalledClient, obtain, obtain_in};
pub use run::{RunOutput, run_headless, run_headless_with};
pub use sandbox::Sandbox;

/// A real client acc-certify can obtain and drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Client {
    ClaudeCode,
    Codex,
    GeminiCli,
    /// xAI's Grok CLI ("Grok Build"), from the PyPI wheel `grok-cli-bin`.
    Grok,
    /// Moonshot's Kimi Code, from npm `@moonshot-ai/kimi-code`, run with its own Node.
    KimiCode,
    /// OpenCode, from npm `opencode-ai` (a native binary per platform).
    OpenCode,
}

impl Client {
    pub const ALL: [Client; 6] = [
        Client::ClaudeCode,
        Client::Codex,
        Client::GeminiCli,
        Client::Grok,
        Client::KimiCode,
        Client::OpenCode,
    ];

    /// The adapter id (`claude-code`, `codex`, `gemini-cli`, `grok`, `kimi-code`).
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeCode => "claude-code",
            Client::Codex => "codex",
            Client::GeminiCli => "gemini-cli",
            Client::Grok => "grok",
            Client::KimiCode => "kimi-code",
            Client::OpenCode => "opencode",
        }
    }

    /// The wire protocol the client speaks to its model.
    pub fn protocol(self) -> Protocol {
        match self {
            Client::ClaudeCode => Protocol::AnthropicMessages,
            Client::Codex => Protocol::OpenAiResponses,
            Client::GeminiCli => Protocol::GeminiGenerateContent,
            Client::Grok => Protocol::OpenAiChatCompletions,
            // Kimi's provider type `anthropic` speaks Anthropic Messages to the double.
            Client::KimiCode => Protocol::AnthropicMessages,
            // A custom provider through `@ai-sdk/openai-compatible`, which OpenCode bundles.
            Client::OpenCode => Protocol::OpenAiChatCompletions,
        }
    }

    /// The pinned version from the pin table.
    pub fn pinned_version(self) -> &'static str {
        pins::pin(self).version
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Client {
    type Err = ClientError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Client::ALL
            .into_iter()
            .find(|client| client.id() == text)
            .ok_or_else(|| ClientError::UnknownClient(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_round_trip_and_unknown_names_are_refused() {
        for client in Client::ALL {
            assert_eq!(client.id().parse::<Client>().unwrap(), client);
        }
        let err = "antigravity".parse::<Client>().unwrap_err();
        assert_eq!(err.code(), "client.unknown");
    }

    #[test]
    fn each_client_speaks_its_own_protocol() {
        assert_eq!(Client::ClaudeCode.protocol(), Protocol::AnthropicMessages);
        assert_eq!(Client::Codex.protocol(), Protocol::OpenAiResponses);
        assert_eq!(
            Client::GeminiCli.protocol(),
            Protocol::GeminiGenerateContent
        );
        assert_eq!(Client::KimiCode.protocol(), Protocol::AnthropicMessages);
    }
}
