//! The explicit, minimal environments clients run with: nothing leaks in from the caller's
//! shell (no real API keys, no user config dirs).

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::Client;
use super::recorder_file::RecorderFile;

/// The system directories every run gets on PATH (git, sh, coreutils).
pub const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

pub use super::recorder_file::DUMMY_KEY;

/// Finds `name` on a PATH value.
pub fn find_program(name: &str, path: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// PATH for client runs: the directory holding `node` on the caller's PATH (npm launchers
/// and Gemini CLI are `#!/usr/bin/env node` scripts) followed by [`SYSTEM_PATH`].
pub fn client_path(caller_path: Option<&OsStr>) -> String {
    let node_dir = caller_path
        .and_then(|path| find_program("node", path))
        .and_then(|node| node.parent().map(Path::to_path_buf));
    match node_dir {
        Some(dir)
            if !SYSTEM_PATH
                .split(':')
                .any(|system| Path::new(system) == dir) =>
        {
            format!("{}:{SYSTEM_PATH}", dir.display())
        }
        _ => SYSTEM_PATH.to_owned(),
    }
}

/// The whole environment of a headless run: PATH, the sandbox variables, and the client's
/// key, base URL and quiet switches. `extra` comes last and wins.
pub fn headless_env(
    client: Client,
    path: &str,
    sandbox_env: &BTreeMap<String, String>,
    double_port: u16,
    extra: &BTreeMap<String, String>,
    unasked: bool,
) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert("PATH".to_owned(), path.to_owned());
    env.insert("TERM".to_owned(), "dumb".to_owned());
    env.insert("LANG".to_owned(), "C.UTF-8".to_owned());
    env.extend(sandbox_env.clone());
    let recorder = client.recorder();
    let client_vars = recorder
        .env
        .iter()
        .chain(recorder.unasked_env.iter().filter(|_| unasked));
    for (key, value) in client_vars {
        env.insert(key.clone(), RecorderFile::fill(value, double_port));
    }
    env.extend(extra.clone());
    env
}

/// The headless command line after the program, per REAL-CLIENTS §0. `unasked`: the client
/// runs every tool call without asking (every client but Claude Code already does
/// headless).
pub fn headless_args(client: Client, prompt: &str, unasked: bool) -> Vec<String> {
    let headless = &client.recorder().headless;
    let args = match &headless.unasked_args {
        Some(args) if unasked => args,
        _ => &headless.args,
    };
    RecorderFile::with_prompt(args, prompt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn node_directory_leads_the_client_path() {
        let dir = tempfile::tempdir().unwrap();
        let node = dir.path().join("node");
        std::fs::write(&node, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
        let caller = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).unwrap();
        assert_eq!(
            client_path(Some(&caller)),
            format!("{}:{SYSTEM_PATH}", dir.path().display())
        );
        assert_eq!(client_path(None), SYSTEM_PATH);
        let system_only = std::env::join_paths([Path::new("/nonexistent")]).unwrap();
        assert_eq!(client_path(Some(&system_only)), SYSTEM_PATH);
    }

    #[test]
    fn each_client_gets_its_own_key_and_base_url() {
        let sandbox: BTreeMap<String, String> = [("HOME".to_owned(), "/sb/home".to_owned())].into();
        let extra: BTreeMap<String, String> = [("HOME".to_owned(), "/override".to_owned())].into();
        let claude = headless_env(Client::ClaudeCode, "/bin", &sandbox, 4242, &extra, false);
        assert_eq!(claude["ANTHROPIC_BASE_URL"], "http://127.0.0.1:4242");
        assert_eq!(claude["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"], "1");
        assert_eq!(claude["HOME"], "/override", "extra wins");
        let gemini = headless_env(
            Client::GeminiCli,
            "/bin",
            &sandbox,
            4242,
            &BTreeMap::new(),
            false,
        );
        assert_eq!(gemini["GOOGLE_GEMINI_BASE_URL"], "http://127.0.0.1:4242");
        assert_eq!(gemini["GEMINI_CLI_TRUST_WORKSPACE"], "true");
        assert_eq!(gemini["HOME"], "/sb/home");
        assert!(!gemini.contains_key("ANTHROPIC_API_KEY"));
        let codex = headless_env(
            Client::Codex,
            "/bin",
            &sandbox,
            4242,
            &BTreeMap::new(),
            false,
        );
        assert_eq!(codex["ACC_DOUBLE_API_KEY"], DUMMY_KEY);
        assert_eq!(codex["PATH"], "/bin");
        let kimi = headless_env(
            Client::KimiCode,
            "/bin",
            &sandbox,
            4242,
            &BTreeMap::new(),
            false,
        );
        assert_eq!(kimi["KIMI_DISABLE_TELEMETRY"], "1");
        assert_eq!(kimi["KIMI_CODE_NO_AUTO_UPDATE"], "1");
        let claude_unasked = headless_env(Client::ClaudeCode, "/bin", &sandbox, 1, &extra, true);
        assert_eq!(claude_unasked["IS_SANDBOX"], "1");
        assert!(!claude.contains_key("IS_SANDBOX"));
        let gemini_unasked = headless_env(Client::GeminiCli, "/bin", &sandbox, 1, &extra, true);
        assert!(!gemini_unasked.contains_key("IS_SANDBOX"));
    }

    #[test]
    fn command_lines_match_the_recipe() {
        assert_eq!(
            headless_args(Client::ClaudeCode, "hi", false),
            ["-p", "hi", "--permission-mode", "acceptEdits"]
        );
        assert_eq!(
            headless_args(Client::Codex, "hi", false),
            [
                "exec",
                "--skip-git-repo-check",
                "-s",
                "danger-full-access",
                "--dangerously-bypass-hook-trust",
                "hi"
            ]
        );
        assert_eq!(
            headless_args(Client::GeminiCli, "hi", false),
            ["-p", "hi", "--yolo"]
        );
        assert_eq!(headless_args(Client::KimiCode, "hi", false), ["-p", "hi"]);
        assert_eq!(
            headless_args(Client::ClaudeCode, "hi", true),
            ["-p", "hi", "--permission-mode", "bypassPermissions"]
        );
        assert_eq!(
            headless_args(Client::GeminiCli, "hi", true),
            headless_args(Client::GeminiCli, "hi", false)
        );
    }
}
