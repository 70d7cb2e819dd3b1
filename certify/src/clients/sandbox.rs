//! A throwaway world for one client run: home, XDG dirs, TMPDIR, CODEX_HOME, an ACC data home
//! and a git workspace, all under one temporary directory that is removed on drop.
//!
//! Order of use, and why:
//! 1. [`Sandbox::new`]: directories and the git workspace (paths a script needs).
//! 2. Start the model double (its port is now known).
//! 3. [`Sandbox::write_base_config`]: the client's own config, pointing at the double.
//! 4. Run acc's real installer with [`Sandbox::env`]. It then finds the base config the way
//!    it finds a user's config, so its install record, plan and byte-for-byte restore are
//!    tested against a realistic pre-existing file, and nothing rewrites its output later.
//! 5. `run_headless`.
//!
//! The base config writers merge (JSON deep merge, TOML table merge), so running step 3
//! after step 4 keeps the installer's hooks, but it reformats the file and so would break
//! the installer's recorded fingerprints: keep the order above.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tempfile::TempDir;

use super::Client;
use super::base_config::base_config;
use super::config_files::{merge_json_file, merge_toml_file};
use super::environment::{SYSTEM_PATH, client_path};
use super::error::ClientError;
use super::process::run_with_timeout;
use super::recorder_file::BaseDocument;

/// The variable that points acc at its data home; kept outside the workspace.
pub const ACC_DATA_HOME_VAR: &str = "ACC_DATA_HOME";

#[derive(Debug)]
pub struct Sandbox {
    client: Client,
    dir: TempDir,
}

impl Sandbox {
    /// Creates the sandbox in the system temp directory.
    pub fn new(client: Client) -> Result<Sandbox, ClientError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("acc-certify-{}-", client.id()))
            .tempdir()
            .map_err(ClientError::io("creating the sandbox directory"))?;
        Sandbox::populate(client, dir)
    }

    /// Creates the sandbox under `parent` (which must exist).
    pub fn new_in(client: Client, parent: &Path) -> Result<Sandbox, ClientError> {
        let dir = tempfile::Builder::new()
            .prefix(&format!("acc-certify-{}-", client.id()))
            .tempdir_in(parent)
            .map_err(ClientError::io(format!(
                "creating the sandbox under {}",
                parent.display()
            )))?;
        Sandbox::populate(client, dir)
    }

    fn populate(client: Client, dir: TempDir) -> Result<Sandbox, ClientError> {
        let sandbox = Sandbox { client, dir };
        let mut dirs = vec![
            sandbox.home(),
            sandbox.xdg_config_home(),
            sandbox.xdg_data_home(),
            sandbox.xdg_cache_home(),
            sandbox.xdg_state_home(),
            sandbox.tmp(),
            sandbox.acc_data_home(),
            sandbox.workspace(),
        ];
        dirs.extend(sandbox.home_vars().into_values());
        for dir in &dirs {
            fs::create_dir_all(dir)
                .map_err(ClientError::io(format!("creating {}", dir.display())))?;
        }
        sandbox.init_workspace()?;
        Ok(sandbox)
    }

    pub fn client(&self) -> Client {
        self.client
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    pub fn xdg_config_home(&self) -> PathBuf {
        self.root().join("xdg/config")
    }

    pub fn xdg_data_home(&self) -> PathBuf {
        self.root().join("xdg/data")
    }

    pub fn xdg_cache_home(&self) -> PathBuf {
        self.root().join("xdg/cache")
    }

    pub fn xdg_state_home(&self) -> PathBuf {
        self.root().join("xdg/state")
    }

    pub fn tmp(&self) -> PathBuf {
        self.root().join("tmp")
    }

    /// ACC's data home, outside the workspace (acc writes nothing inside a repository).
    pub fn acc_data_home(&self) -> PathBuf {
        self.root().join("acc-data")
    }

    /// The git workspace the client runs in.
    pub fn workspace(&self) -> PathBuf {
        self.root().join("workspace")
    }

    /// `$HOME/.codex`, for Codex only.
    pub fn codex_home(&self) -> Option<PathBuf> {
        self.home_vars().remove("CODEX_HOME")
    }

    /// The client's own home variables (its recorder file's `[home-vars]`), as paths.
    fn home_vars(&self) -> BTreeMap<String, PathBuf> {
        self.client
            .recorder()
            .home_vars
            .iter()
            .map(|(var, dir)| (var.clone(), self.home().join(dir)))
            .collect()
    }

    /// The user-level file the client reads hooks from (for Grok, which reads every
    /// `~/.grok/hooks/*.json`, one file there).
    pub fn hook_config_path(&self) -> PathBuf {
        self.home().join(&self.client.recorder().config.hooks)
    }

    /// The sandbox variables: HOME, XDG_*, TMPDIR, ACC_DATA_HOME, and the client's own home
    /// variables (CODEX_HOME for Codex).
    pub fn env(&self) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> = [
            ("HOME", self.home()),
            ("XDG_CONFIG_HOME", self.xdg_config_home()),
            ("XDG_DATA_HOME", self.xdg_data_home()),
            ("XDG_CACHE_HOME", self.xdg_cache_home()),
            ("XDG_STATE_HOME", self.xdg_state_home()),
            ("TMPDIR", self.tmp()),
            (ACC_DATA_HOME_VAR, self.acc_data_home()),
        ]
        .into_iter()
        .map(|(key, path)| (key.to_owned(), path.display().to_string()))
        .collect();
        for (var, dir) in self.home_vars() {
            env.insert(var, dir.display().to_string());
        }
        env
    }

    /// Writes (merging) the client's base config for a double on `double_port`; returns the
    /// files it wrote. Claude Code needs none.
    pub fn write_base_config(&self, double_port: u16) -> Result<Vec<PathBuf>, ClientError> {
        let Some((file, document)) = base_config(self.client, double_port) else {
            return Ok(Vec::new());
        };
        let path = self.home().join(file);
        match document {
            BaseDocument::Json(patch) => merge_json_file(&path, &patch)?,
            BaseDocument::Toml(patch) => merge_toml_file(&path, &patch)?,
        }
        Ok(vec![path])
    }

    /// Keeps the directory on disk (for inspection) and returns its path.
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }

    /// `git init` with one empty commit; identity and dates fixed so that the commit (and so
    /// whatever a client shows of it) is the same on every run.
    fn init_workspace(&self) -> Result<(), ClientError> {
        let workspace = self.workspace();
        let git_steps: [&[&str]; 4] = [
            &["init", "-q", "-b", "main"],
            &["config", "user.name", "acc-certify"],
            &["config", "user.email", "certify@acc.invalid"],
            &["commit", "-q", "--allow-empty", "-m", "init"],
        ];
        let path = client_path(std::env::var_os("PATH").as_deref());
        for args in git_steps {
            let mut command = Command::new("git");
            command
                .args(args)
                .current_dir(&workspace)
                .env_clear()
                .env("PATH", if path.is_empty() { SYSTEM_PATH } else { &path })
                .env("HOME", self.home())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("GIT_AUTHOR_DATE", "2000-01-01T00:00:00Z")
                .env("GIT_COMMITTER_DATE", "2000-01-01T00:00:00Z");
            let finished =
                run_with_timeout(&mut command, Duration::from_secs(60)).map_err(|err| {
                    if err.kind() == std::io::ErrorKind::NotFound {
                        ClientError::ToolMissing { tool: "git" }
                    } else {
                        ClientError::io("running git")(err)
                    }
                })?;
            if !finished.status.success() {
                return Err(ClientError::CommandFailed {
                    command: format!("git {}", args.join(" ")),
                    output: String::from_utf8_lossy(&finished.stderr).into_owned(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(workspace: &Path, args: &[&str]) -> String {
        let output = Command::new("git")
            .args(args)
            .current_dir(workspace)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    }

    #[test]
    fn the_layout_keeps_acc_data_outside_the_workspace() {
        let sandbox = Sandbox::new(Client::ClaudeCode).unwrap();
        let env = sandbox.env();
        for key in [
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "TMPDIR",
            "ACC_DATA_HOME",
        ] {
            let path = Path::new(&env[key]);
            assert!(path.is_dir(), "{key}");
            assert!(path.starts_with(sandbox.root()), "{key}");
            assert!(!path.starts_with(sandbox.workspace()), "{key}");
        }
        assert!(!env.contains_key("CODEX_HOME"));
        assert_eq!(sandbox.write_base_config(1).unwrap(), Vec::<PathBuf>::new());
    }

    #[test]
    fn the_workspace_is_a_git_repository_with_one_commit_and_a_local_identity() {
        let sandbox = Sandbox::new(Client::GeminiCli).unwrap();
        let workspace = sandbox.workspace();
        assert_eq!(
            git(&workspace, &["rev-list", "--count", "HEAD"]).trim(),
            "1"
        );
        assert_eq!(
            git(&workspace, &["config", "--local", "user.email"]).trim(),
            "certify@acc.invalid"
        );
        assert_eq!(git(&workspace, &["status", "--porcelain"]), "");
    }

    #[test]
    fn codex_gets_its_home_and_a_merged_config() {
        let sandbox = Sandbox::new(Client::Codex).unwrap();
        let codex_home = sandbox.codex_home().unwrap();
        assert_eq!(
            sandbox.env()["CODEX_HOME"],
            codex_home.display().to_string()
        );
        // An installer may have written its own keys already; they must survive.
        let config_path = codex_home.join("config.toml");
        fs::write(
            &config_path,
            "[hooks.state.\"k\"]\ntrusted_hash = \"sha256:x\"\n",
        )
        .unwrap();
        let written = sandbox.write_base_config(4321).unwrap();
        assert_eq!(written, vec![config_path.clone()]);
        let config: toml::Table = fs::read_to_string(&config_path).unwrap().parse().unwrap();
        assert_eq!(
            config["hooks"]["state"]["k"]["trusted_hash"].as_str(),
            Some("sha256:x")
        );
        assert_eq!(
            config["model_providers"]["acc-double"]["base_url"].as_str(),
            Some("http://127.0.0.1:4321/v1")
        );
        assert_eq!(sandbox.hook_config_path(), codex_home.join("hooks.json"));
    }

    #[test]
    fn gemini_settings_merge_around_existing_hooks() {
        let sandbox = Sandbox::new(Client::GeminiCli).unwrap();
        let settings = sandbox.hook_config_path();
        fs::create_dir_all(settings.parent().unwrap()).unwrap();
        fs::write(&settings, r#"{"hooks": {"BeforeTool": []}}"#).unwrap();
        sandbox.write_base_config(1).unwrap();
        let merged: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(merged["hooks"]["BeforeTool"], serde_json::json!([]));
        assert_eq!(merged["security"]["auth"]["selectedType"], "gemini-api-key");
    }

    #[test]
    fn the_directory_is_removed_on_drop_unless_kept() {
        let sandbox = Sandbox::new(Client::ClaudeCode).unwrap();
        let root = sandbox.root().to_path_buf();
        drop(sandbox);
        assert!(!root.exists());
        let kept = Sandbox::new(Client::ClaudeCode).unwrap().keep();
        assert!(kept.join("workspace/.git").is_dir());
        fs::remove_dir_all(kept).unwrap();
    }
}
