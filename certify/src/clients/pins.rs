//! The one table of real clients: where each comes from and which version is pinned.

use super::Client;

/// The public registry a client is installed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `npm install --prefix <dir> <package>@<version>`; the program is
    /// `<dir>/node_modules/.bin/<bin>`.
    Npm { package: &'static str },
    /// `python3 -m venv <dir>/venv && pip install <package>==<version>`; the program is
    /// `<dir>/venv/bin/<bin>`.
    PyPi { package: &'static str },
}

impl Source {
    pub fn package(self) -> &'static str {
        match self {
            Source::Npm { package } | Source::PyPi { package } => package,
        }
    }

    /// `package@version` (npm) or `package==version` (pip), as the installer is given it.
    pub fn requirement(self, version: &str) -> String {
        match self {
            Source::Npm { package } => format!("{package}@{version}"),
            Source::PyPi { package } => format!("{package}=={version}"),
        }
    }
}

/// A pinned client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pin {
    pub client: Client,
    pub source: Source,
    /// The version `acc-certify record` uses unless told otherwise.
    pub version: &'static str,
    /// The program name the package installs.
    pub bin: &'static str,
}

pub const PINS: [Pin; 3] = [
    Pin {
        client: Client::ClaudeCode,
        source: Source::Npm {
            package: "@anthropic-ai/claude-code",
        },
        version: "2.1.332",
        bin: "claude",
    },
    Pin {
        client: Client::Codex,
        source: Source::Npm {
            package: "@openai/codex",
        },
        version: "0.171.0",
        bin: "codex",
    },
    Pin {
        client: Client::GeminiCli,
        source: Source::Npm {
            package: "@google/gemini-cli",
        },
        version: "0.61.0",
        bin: "gemini",
    },
];

pub fn pin(client: Client) -> &'static Pin {
    PINS.iter()
        .find(|pin| pin.client == client)
        .expect("every client has exactly one pin")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_has_one_pin() {
        for client in Client::ALL {
            let matching = PINS.iter().filter(|pin| pin.client == client).count();
            assert_eq!(matching, 1, "{client}");
            assert!(semver::Version::parse(pin(client).version).is_ok());
        }
    }

    #[test]
    fn requirements_use_each_registry_syntax() {
        assert_eq!(
            pin(Client::Codex).source.requirement("0.171.0"),
            "@openai/codex@0.171.0"
        );
        assert_eq!(
            Source::PyPi { package: "x-bin" }.requirement("1.2.3"),
            "x-bin==1.2.3"
        );
    }
}
