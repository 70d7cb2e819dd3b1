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
pub mod list;
pub mod network;
pub mod obtain;
pub mod offline;
pub mod pins;
pub mod process;
pub mod recorder_file;
pub mod run;
pub mod sandbox;
pub mod version;

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use crate::doubles::Protocol;

pub use cache::Cache;
pub use error::ClientError;
pub use obtain::{InstalledClient, obtain, obtain_in};
pub use recorder_file::RecorderFile;
pub use run::{RunOutput, run_headless, run_headless_with};
pub use sandbox::Sandbox;

/// A real client acc-certify can obtain and drive: one entry of [`list::RECORDER_FILES`],
/// whose facts are in its adapter's `recorder.toml` ([`Client::recorder`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Client(&'static str);

/// The clients that code refers to by name, for the few facts that are code rather than
/// data (the hook points: Claude Code's interactive settings and its place in every
/// coordinate pair, Codex's hook trust and daemon in its terminal interface). Spelled as the
/// enum variants they replace, so that code reads as before.
#[allow(non_upper_case_globals)]
impl Client {
    pub const ClaudeCode: Client = Client("claude-code");
    pub const Codex: Client = Client("codex");
    pub const GeminiCli: Client = Client("gemini-cli");
    /// xAI's Grok CLI ("Grok Build"), from the PyPI wheel `grok-cli-bin`.
    pub const Grok: Client = Client("grok");
    /// Moonshot's Kimi Code, from npm `@moonshot-ai/kimi-code`, run with its own Node.
    pub const KimiCode: Client = Client("kimi-code");
}

/// Every recorder file, parsed once. The files are compiled in and checked by this crate's
/// tests, so a broken one cannot ship; a panic here names the file and the fix.
static RECORDERS: LazyLock<Vec<RecorderFile>> = LazyLock::new(|| {
    list::RECORDER_FILES
        .iter()
        .map(|(id, text)| RecorderFile::parse(id, text).unwrap_or_else(|err| panic!("{err}")))
        .collect()
});

static ALL: LazyLock<Vec<Client>> = LazyLock::new(|| {
    list::RECORDER_FILES
        .iter()
        .map(|(id, _)| Client(id))
        .collect()
});

impl Client {
    /// Every client, in the list's order.
    pub fn all() -> &'static [Client] {
        &ALL
    }

    /// The adapter id (`claude-code`, `codex`, `gemini-cli`, ...).
    pub fn id(self) -> &'static str {
        self.0
    }

    /// The client's facts from `adapters/<id>/recorder.toml`.
    pub fn recorder(self) -> &'static RecorderFile {
        RECORDERS
            .iter()
            .find(|file| file.id == self.0)
            .unwrap_or_else(|| panic!("{} is not in certify/src/clients/list.rs", self.0))
    }

    /// The wire protocol the client speaks to its model.
    pub fn protocol(self) -> Protocol {
        self.recorder()
            .protocol()
            .expect("parsing checked the protocol")
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
        Client::all()
            .iter()
            .copied()
            .find(|client| client.id() == text)
            .ok_or_else(|| ClientError::UnknownClient(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_round_trip_and_unknown_names_are_refused() {
        for &client in Client::all() {
            assert_eq!(client.id().parse::<Client>().unwrap(), client);
        }
        let err = "antigravity".parse::<Client>().unwrap_err();
        assert_eq!(err.code(), "client.unknown");
    }

    #[test]
    fn named_clients_are_listed() {
        for client in [
            Client::ClaudeCode,
            Client::Codex,
            Client::GeminiCli,
            Client::Grok,
            Client::KimiCode,
        ] {
            assert!(Client::all().contains(&client), "{client}");
        }
    }

    #[test]
    fn every_adapter_folder_with_a_recorder_file_is_listed_and_parses() {
        let adapters = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters");
        let mut on_disk: Vec<String> = std::fs::read_dir(&adapters)
            .unwrap()
            .flatten()
            .filter(|entry| entry.path().join("recorder.toml").is_file())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = list::RECORDER_FILES
            .iter()
            .map(|(id, _)| (*id).to_owned())
            .collect();
        listed.sort();
        assert_eq!(on_disk, listed, "certify/src/clients/list.rs");
        for (id, text) in list::RECORDER_FILES {
            let on_disk = std::fs::read_to_string(adapters.join(id).join("recorder.toml")).unwrap();
            assert_eq!(&on_disk, text, "{id}");
            RecorderFile::parse(id, text).unwrap_or_else(|err| panic!("{err}"));
        }
        assert_eq!(RECORDERS.len(), list::RECORDER_FILES.len());
    }

    #[test]
    fn each_client_speaks_its_own_protocol() {
        assert_eq!(Client::ClaudeCode.protocol(), Protocol::AnthropicMessages);
        assert_eq!(Client::Codex.protocol(), Protocol::OpenAiResponses);
        assert_eq!(
            Client::GeminiCli.protocol(),
            Protocol::GeminiGenerateContent
        );
        assert_eq!(Client::Grok.protocol(), Protocol::OpenAiChatCompletions);
        assert_eq!(Client::KimiCode.protocol(), Protocol::AnthropicMessages);
    }
}
