//! Install contexts for adapter tests, and the check that a client's probe is the one its
//! manifest declares.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::install::InstallContext;
use crate::install_layout::HookFileClient;

/// A context for a user whose home is `home`, with `env` as the only environment, acc at
/// `/opt/acc/bin` and the platform's default data home.
pub fn context(home: &Path, env: &[(&str, &str)]) -> InstallContext {
    InstallContext {
        home: home.to_path_buf(),
        acc_data_dir: home.join("data/acc"),
        hook_executable: PathBuf::from("/opt/acc/bin/acc-hook"),
        acc_executable: PathBuf::from("/opt/acc/bin/acc"),
        pinned_data_home: None,
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        platform: "linux-x64".to_owned(),
        receiver_sockets: Vec::new(),
        acc_version: "0.1.0".to_owned(),
        recorded_hooks: Vec::new(),
    }
}

/// Where `client` puts its hook file and skill tree for the user `/home/u` whose only
/// environment is `env`.
pub fn layout_paths<C: HookFileClient>(client: &C, env: &[(&str, &str)]) -> [String; 2] {
    let layout = client.layout(&context(Path::new("/home/u"), env));
    [&layout.hooks, &layout.skill].map(|p| p.display().to_string())
}

/// Asserts that detection runs the command and version arguments `adapter_json` declares.
#[track_caller]
pub fn assert_probe_is_the_manifests<C: HookFileClient>(adapter_json: &str) {
    let manifest: Value = serde_json::from_str(adapter_json).expect("adapter.json is JSON");
    assert_eq!(manifest["client"]["command"], C::COMMAND, "client.command");
    assert_eq!(
        manifest["client"]["versionArgs"],
        serde_json::json!(C::VERSION_ARGS),
        "client.versionArgs"
    );
}
