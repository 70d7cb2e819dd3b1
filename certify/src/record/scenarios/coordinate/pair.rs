//! Which clients coordinate, in which roles, and where their recording lives.

use std::fmt;
use std::sync::LazyLock;

use crate::clients::Client;
use crate::record::kit::tuple::Tuple;

/// Two clients in one workspace: the owner's model claims, answers and releases; the
/// asker's model writes, is refused, asks and writes again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    pub owner: Client,
    pub asker: Client,
}

/// The pairs `record` runs: Claude Code with every client whose recorder file says
/// `coordinate-with-claude-code`, Claude Code as owner first, then each client as owner. Both clients share one sandbox home, which is made for the client that
/// needs a base config ([`Pair::home_client`]); Claude Code, which needs none, is in every
/// pair.
pub static PAIRS: LazyLock<Vec<Pair>> = LazyLock::new(|| {
    let partners: Vec<Client> = Client::all()
        .iter()
        .copied()
        .filter(|client| client.recorder().scenarios.coordinate_with_claude_code)
        .collect();
    let owned_by_claude = partners.iter().map(|&asker| Pair {
        owner: Client::ClaudeCode,
        asker,
    });
    let asked_by_claude = partners.iter().map(|&owner| Pair {
        owner,
        asker: Client::ClaudeCode,
    });
    owned_by_claude.chain(asked_by_claude).collect()
});

impl Pair {
    /// The pairs whose two clients are both among `clients`.
    pub fn among(clients: &[Client]) -> Vec<Pair> {
        PAIRS
            .iter()
            .copied()
            .filter(|pair| clients.contains(&pair.owner) && clients.contains(&pair.asker))
            .collect()
    }

    /// The pairs `client` takes part in, whichever its role: recording one client records
    /// its pairs too, its partner obtained as any recorded client is (none of the partner's
    /// own scenarios run).
    pub fn of(client: Client) -> Vec<Pair> {
        PAIRS
            .iter()
            .copied()
            .filter(|pair| pair.owner == client || pair.asker == client)
            .collect()
    }

    /// The client the shared sandbox is made for: the one whose base config must be
    /// written (Claude Code's is only its environment).
    pub fn home_client(self) -> Client {
        if self.owner == Client::ClaudeCode {
            self.asker
        } else {
            self.owner
        }
    }
}

impl fmt::Display for Pair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+{}", self.owner, self.asker)
    }
}

/// `captures/coordinate/<owner build>+<asker build>`, relative to the repository.
pub fn bundle_path(owner: &Tuple, asker: &Tuple) -> String {
    format!("captures/coordinate/{}+{}", owner.label(), asker.label())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(client: &str, version: &str) -> Tuple {
        Tuple {
            adapter: client.into(),
            client: client.into(),
            version: version.into(),
            platform: "linux-x64".into(),
        }
    }

    #[test]
    fn pairs_run_only_when_both_clients_are_recorded() {
        assert_eq!(Pair::among(Client::all()), *PAIRS);
        let named: Vec<String> = PAIRS.iter().map(Pair::to_string).collect();
        assert_eq!(
            named,
            [
                "claude-code+codex",
                "claude-code+gemini-cli",
                "claude-code+opencode",
                "claude-code+copilot",
                "claude-code+qwen-code",
                "codex+claude-code",
                "gemini-cli+claude-code",
                "opencode+claude-code",
                "copilot+claude-code",
                "qwen-code+claude-code",
            ]
        );
        let named = |pairs: Vec<Pair>| pairs.iter().map(Pair::to_string).collect::<Vec<_>>();
        assert_eq!(Pair::among(&[Client::ClaudeCode]), []);
        assert_eq!(
            named(Pair::among(&[Client::GeminiCli, Client::ClaudeCode])),
            ["claude-code+gemini-cli", "gemini-cli+claude-code"]
        );
        let copilot: Client = "copilot".parse().unwrap();
        assert_eq!(
            named(Pair::of(copilot)),
            ["claude-code+copilot", "copilot+claude-code"]
        );
        assert_eq!(Pair::of(Client::Grok), []);
        assert_eq!(Pair::of(Client::ClaudeCode), *PAIRS);
        for pair in Pair::of(copilot) {
            assert_eq!(pair.home_client(), copilot);
        }
        assert_eq!(PAIRS[0].home_client(), Client::Codex);
        for pair in PAIRS.iter() {
            assert_ne!(pair.owner, pair.asker);
        }
    }

    #[test]
    fn the_bundle_names_both_builds() {
        assert_eq!(
            bundle_path(
                &tuple("claude-code", "2.1.332"),
                &tuple("codex-cli", "0.171.0")
            ),
            "captures/coordinate/claude-code-2.1.332-linux-x64+codex-cli-0.171.0-linux-x64"
        );
    }
}
