//! Every shipped client adapter, in one list.
//!
//! Being listed here is what makes an adapter exist for `acc-hook`, the installer and the
//! conformance checks, so a new adapter gets every check by being added to [`all`].

use acc_sdk::define::Adapter;

type Constructor = fn() -> Adapter;

/// Each shipped adapter's id and constructor. Construction refusing is a bug in that
/// adapter's own embedded files, so the constructor panics with the adapter's problem rather
/// than the adapter quietly going missing.
const SHIPPED: &[(&str, Constructor)] = &[
    (
        acc_adapter_antigravity::ID,
        acc_adapter_antigravity::adapter,
    ),
    (
        acc_adapter_claude_code::ID,
        acc_adapter_claude_code::adapter,
    ),
    (acc_adapter_codex::ID, acc_adapter_codex::adapter),
    (acc_adapter_gemini_cli::ID, acc_adapter_gemini_cli::adapter),
    (acc_adapter_grok::ID, acc_adapter_grok::adapter),
    (acc_adapter_kimi_code::ID, acc_adapter_kimi_code::adapter),
    (acc_adapter_opencode::ID, acc_adapter_opencode::adapter),
    (acc_adapter_copilot::ID, acc_adapter_copilot::adapter),
    (acc_adapter_qwen_code::ID, acc_adapter_qwen_code::adapter),
];

/// Every shipped client's hook-control files ([`acc_adapter_claude_code::HOOK_CONTROL_FILES`]
/// and the like): path endings whose files can switch a client's hooks off. The guard keeps
/// every agent's tools out of all of them, whichever client the agent runs in, since an agent
/// of one client can unwire another.
pub const HOOK_CONTROL_FILES: &[&[&str]] = &[
    acc_adapter_antigravity::HOOK_CONTROL_FILES,
    acc_adapter_claude_code::HOOK_CONTROL_FILES,
    acc_adapter_codex::HOOK_CONTROL_FILES,
    acc_adapter_gemini_cli::HOOK_CONTROL_FILES,
    acc_adapter_grok::HOOK_CONTROL_FILES,
    acc_adapter_kimi_code::HOOK_CONTROL_FILES,
    acc_adapter_opencode::HOOK_CONTROL_FILES,
    acc_adapter_copilot::HOOK_CONTROL_FILES,
    acc_adapter_qwen_code::HOOK_CONTROL_FILES,
];

/// Every shipped adapter, sorted by id.
pub fn all() -> Vec<Adapter> {
    let mut adapters: Vec<Adapter> = SHIPPED.iter().map(|(_, make)| make()).collect();
    adapters.sort_by(|a, b| a.id().cmp(b.id()));
    adapters
}

/// The shipped adapter with `id`, if there is one. Builds only that adapter (a hook runs
/// once per client event, so it should not pay for the other five).
pub fn find(id: &str) -> Option<Adapter> {
    SHIPPED
        .iter()
        .find(|(shipped, _)| *shipped == id)
        .map(|(_, make)| make())
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDS: [&str; 9] = [
        "antigravity",
        "claude-code",
        "codex",
        "copilot",
        "gemini-cli",
        "grok",
        "kimi-code",
        "opencode",
        "qwen-code",
    ];

    #[test]
    fn every_shipped_adapter_constructs_sorted_and_unique() {
        let ids: Vec<String> = all().iter().map(|a| a.id().to_owned()).collect();
        assert_eq!(ids, IDS);
    }

    #[test]
    fn find_returns_the_adapter_with_that_id_and_nothing_else() {
        for id in IDS {
            assert_eq!(find(id).map(|a| a.id().to_owned()).as_deref(), Some(id));
        }
        for absent in ["", "claude", "Claude-Code", "codex-cli", "test"] {
            assert!(find(absent).is_none(), "{absent}");
        }
    }

    #[test]
    fn each_listed_id_is_the_id_its_adapter_declares() {
        for (id, make) in SHIPPED {
            assert_eq!(make().id(), *id);
        }
    }

    #[test]
    fn every_listed_adapter_has_a_valid_directory_of_the_same_name() {
        let adapters = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters");
        for adapter in all() {
            let dir = adapters.join(adapter.id());
            let problems = acc_sdk::certification::validate_adapter_dir(&dir);
            assert!(problems.is_empty(), "{}: {problems:?}", dir.display());
        }
    }

    /// Hooks resolve grants from the table each adapter's build script compiled; it must
    /// hold exactly the full file's rows and so resolve every case the same way.
    #[test]
    fn each_compiled_evidence_table_resolves_what_the_full_certification_resolves() {
        use acc_sdk::capabilities::Capability;
        use acc_sdk::resolution::{ClientFacts, capability_evidence};
        let mut cases = 0;
        for adapter in all() {
            let full = adapter.certification();
            assert_eq!(
                adapter.declaration().evidence(),
                &full.table(),
                "{}",
                adapter.id()
            );
            let mut versions: Vec<Option<String>> =
                vec![None, Some("unreadable".into()), Some("0.0.1".into())];
            let mut platforms = vec!["linux-x64".to_owned(), "darwin-arm64".to_owned()];
            for row in &full.evidence {
                versions.push(Some(row.version.clone()));
                versions.push(Some(format!("{}-rc.1", row.version)));
                versions.push(Some(format!("{}9", row.version)));
                platforms.push(row.platform.clone());
            }
            let mut clients: Vec<Option<String>> = vec![None, Some("not-a-client".into())];
            clients.extend(
                adapter
                    .manifest()
                    .client
                    .client_names()
                    .into_iter()
                    .map(|c| Some(c.to_owned())),
            );
            for client_name in &clients {
                for client_version in &versions {
                    for platform in &platforms {
                        let facts = ClientFacts {
                            client_version: client_version.clone(),
                            platform: platform.clone(),
                            client_name: client_name.clone(),
                        };
                        for cap in Capability::ALL {
                            let want = capability_evidence(adapter.manifest(), full, &facts, cap);
                            let got = adapter.capability_evidence(&facts, cap);
                            assert_eq!(got, want, "{} {cap} {facts:?}", adapter.id());
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert!(
            cases > 10_000,
            "the grid reaches every shipped row: {cases}"
        );
    }

    #[test]
    fn each_adapter_declares_its_own_client() {
        let primaries: Vec<(String, String)> = all()
            .iter()
            .map(|a| (a.id().to_owned(), a.manifest().client.primary().to_owned()))
            .collect();
        assert_eq!(
            primaries,
            [
                ("antigravity", "antigravity-cli"),
                ("claude-code", "claude-code"),
                ("codex", "codex-cli"),
                ("copilot", "copilot"),
                ("gemini-cli", "gemini-cli"),
                ("grok", "grok"),
                ("kimi-code", "kimi-code"),
                ("opencode", "opencode"),
                ("qwen-code", "qwen-code"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
    }
}
