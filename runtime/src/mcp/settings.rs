//! What the server takes from its environment: who it acts as, where the workspace is, the
//! data home and the clock.
//!
//! Identity comes only from `ACC_MCP_PARTICIPANT` and `ACC_MCP_WORKSPACE`, never from the
//! client's `clientInfo`: a client names itself however it likes, while the person who
//! registered the server chose these variables.

use crate::cli::context::TEST_CLOCK_VAR;
use crate::clock::{ManualClock, parse_iso};
use crate::core::{Core, Ports};
use crate::env::Env;
use crate::error::{AccError, Result};
use crate::ids::ParticipantId;
use crate::paths;
use crate::store::OpenMode;
use crate::workspace::{self, WorkspaceDescriptor};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The participant the server acts as.
pub const PARTICIPANT_VAR: &str = "ACC_MCP_PARTICIPANT";
/// The absolute directory whose workspace the server joins.
pub const WORKSPACE_VAR: &str = "ACC_MCP_WORKSPACE";
/// The participant when `ACC_MCP_PARTICIPANT` is unset.
pub const DEFAULT_PARTICIPANT: &str = "mcp";

/// The server's fixed surroundings, resolved once at start.
#[derive(Clone)]
pub struct Settings {
    pub participant: ParticipantId,
    /// Where workspace discovery starts.
    pub start_dir: PathBuf,
    /// The environment discovery and the data home are resolved from.
    env: Env,
    pub ports: Ports,
}

impl Settings {
    /// The environment the server was started with.
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// Resolves the settings; a bad variable is a usage error naming it.
    pub fn from_env(env: &Env, cwd: &Path) -> Result<Settings> {
        let raw = env.get(PARTICIPANT_VAR).unwrap_or(DEFAULT_PARTICIPANT);
        let participant = ParticipantId::parse(raw)
            .map_err(|e| AccError::new(e.code, format!("{PARTICIPANT_VAR}: {}", e.message)))?;
        let start_dir = match env.get(WORKSPACE_VAR) {
            Some(dir) => {
                let p = PathBuf::from(dir);
                if !p.is_absolute() {
                    return Err(AccError::usage(format!(
                        "{WORKSPACE_VAR} must be an absolute path, got {dir:?}"
                    )));
                }
                p
            }
            None => cwd.to_path_buf(),
        };
        // Only ACC_MCP_WORKSPACE (or the directory the client started us in) places the
        // server; an ACC_WORKSPACE_ROOT leaking from the client's own environment must not.
        let mut env = env.clone();
        env.set("ACC_WORKSPACE_ROOT", "");
        let ports = ports(&env)?;
        Ok(Settings {
            participant,
            start_dir,
            env,
            ports,
        })
    }

    pub fn workspace(&self) -> Result<WorkspaceDescriptor> {
        workspace::discover(&self.start_dir, &self.env)
    }

    pub fn data_home(&self) -> Result<PathBuf> {
        paths::data_home(&self.env)
    }

    /// Opens a core on the workspace; only [`OpenMode::ReadWrite`] may create the store.
    pub fn open_core(&self, mode: OpenMode) -> Result<Core> {
        Core::open(
            self.workspace()?,
            &self.data_home()?,
            mode,
            self.ports.clone(),
        )
    }
}

/// The system ports, with time pinned by the same test-only variable the CLI honours.
fn ports(env: &Env) -> Result<Ports> {
    let mut ports = Ports::system();
    if let Some(v) = env.get(TEST_CLOCK_VAR) {
        let ms = parse_iso(v)
            .or_else(|| v.parse::<i64>().ok())
            .ok_or_else(|| AccError::usage(format!("{TEST_CLOCK_VAR} {v:?} is not a timestamp")))?;
        ports.clock = Arc::new(ManualClock::at(ms));
    }
    Ok(ports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn defaults_to_participant_mcp_in_the_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let s = Settings::from_env(&Env::new(), dir.path()).unwrap();
        assert_eq!(s.participant.as_str(), "mcp");
        assert_eq!(s.start_dir, dir.path());
    }

    #[test]
    fn the_mcp_variables_win_over_the_cwd_and_acc_workspace_root() {
        let cwd = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let env = Env::new()
            .with(PARTICIPANT_VAR, "alice")
            .with(WORKSPACE_VAR, ws.path().to_str().unwrap())
            .with("ACC_WORKSPACE_ROOT", other.path().to_str().unwrap());
        let s = Settings::from_env(&env, cwd.path()).unwrap();
        assert_eq!(s.participant.as_str(), "alice");
        let found = s.workspace().unwrap();
        assert_eq!(found.roots, vec![ws.path().canonicalize().unwrap()]);
    }

    #[test]
    fn bad_variables_are_usage_errors_naming_them() {
        let cwd = tempfile::tempdir().unwrap();
        let e = Settings::from_env(&Env::new().with(WORKSPACE_VAR, "rel/dir"), cwd.path())
            .err()
            .unwrap();
        assert_eq!(e.exit_code(), 2);
        assert!(e.message.contains(WORKSPACE_VAR), "{}", e.message);
        let e = Settings::from_env(&Env::new().with(PARTICIPANT_VAR, "no spaces"), cwd.path())
            .err()
            .unwrap();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert!(
            e.message.starts_with("ACC_MCP_PARTICIPANT: "),
            "{}",
            e.message
        );
    }
}
