//! The [`InstallContext`] an install, uninstall or doctor run hands every adapter, built
//! from the invocation's explicit environment, never from the process's behind its back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acc_sdk::hook_command::HOOK_BINARY;
use acc_sdk::install::InstallContext;

use super::error::{InstallError, InstallErrorKind};
use crate::env::Env;
use crate::paths::{self, lexical_normalise};

/// The variables adapters may read to find a client's files (and the probe needs to run a
/// client). Nothing else from the environment reaches an adapter.
pub const CONTEXT_VARS: [&str; 13] = [
    "HOME",
    "PATH",
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
    "GEMINI_CLI_HOME",
    "KIMI_CODE_HOME",
    "GROK_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "TMPDIR",
];

/// What a context is built from.
#[derive(Debug, Clone)]
pub struct ContextRequest<'a> {
    pub env: &'a Env,
    /// `--home`, resolved against `cwd` when relative.
    pub home: Option<&'a Path>,
    pub cwd: &'a Path,
    /// The running `acc`; `acc-hook` is looked for beside it.
    pub acc_executable: &'a Path,
}

/// Builds the context. Fails (usage) without a usable home or data home.
pub fn build_context(request: &ContextRequest<'_>) -> Result<InstallContext, InstallError> {
    let usage = |m: String| InstallError::new(InstallErrorKind::Usage, m);
    let home = match request.home {
        Some(dir) if dir.is_absolute() => lexical_normalise(dir),
        Some(dir) => lexical_normalise(&request.cwd.join(dir)),
        None => match request.env.get("HOME").map(PathBuf::from) {
            Some(home) if home.is_absolute() => home,
            _ => {
                return Err(usage(
                    "cannot tell which home to wire: HOME is unset or relative; pass --home DIR"
                        .to_owned(),
                ));
            }
        },
    };
    let mut env: BTreeMap<String, String> = CONTEXT_VARS
        .iter()
        .filter_map(|name| Some((name.to_string(), request.env.get(name)?.to_owned())))
        .collect();
    env.insert("HOME".to_owned(), path_text(&home, "the home")?);
    // The data home follows the home being wired unless it was set explicitly.
    let mut data_env = request.env.clone();
    data_env.set("HOME", &env["HOME"]);
    let data_home = paths::data_home(&data_env).map_err(|e| usage(e.message))?;
    path_text(&data_home, "the data home")?;
    let pinned = request.env.get("ACC_DATA_HOME").map(|_| data_home.clone());
    let acc_executable = request.acc_executable.to_path_buf();
    path_text(&acc_executable, "the acc executable")?;
    Ok(InstallContext {
        hook_executable: hook_executable_beside(&acc_executable),
        acc_executable,
        home,
        acc_data_dir: data_home.join("acc"),
        pinned_data_home: pinned,
        env,
        platform: platform(),
        receiver_sockets: Vec::new(),
        acc_version: env!("CARGO_PKG_VERSION").to_owned(),
        recorded_hooks: Vec::new(),
    })
}

/// Paths go into shell commands and JSON; a path that is not UTF-8 cannot be written
/// faithfully, so it is refused rather than mangled.
fn path_text(path: &Path, what: &str) -> Result<String, InstallError> {
    path.to_str().map(str::to_owned).ok_or_else(|| {
        InstallError::new(
            InstallErrorKind::Usage,
            format!(
                "{what} {} is not valid UTF-8; acc cannot write it into a client's config",
                path.display()
            ),
        )
    })
}

/// Fills `receiver_sockets` with every adapter's inbound sockets, for adapters whose client
/// sandboxes the sender and must allow exactly those.
pub fn compose_receiver_sockets(ctx: &mut InstallContext, adapters: &[acc_sdk::define::Adapter]) {
    let mut sockets: Vec<PathBuf> = adapters
        .iter()
        .flat_map(|a| a.behaviour().inbound_sockets(ctx))
        .collect();
    sockets.sort();
    sockets.dedup();
    ctx.receiver_sockets = sockets;
}

/// `acc-hook` in the directory of `acc`.
pub fn hook_executable_beside(acc: &Path) -> PathBuf {
    acc.parent().unwrap_or(Path::new("/")).join(HOOK_BINARY)
}

/// Refuses to wire hooks that would run a missing or non-executable `acc-hook`.
pub fn require_hook_executable(ctx: &InstallContext) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt;
    let path = &ctx.hook_executable;
    let runnable =
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    if runnable {
        return Ok(());
    }
    Err(InstallError::new(
        InstallErrorKind::HookExecutableMissing,
        format!(
            "refusing to install: the hook runtime {} does not exist or is not executable (it must sit beside {}); reinstall acc so both binaries are in one directory",
            path.display(),
            ctx.acc_executable.display()
        ),
    )
    .at(path))
}

/// `linux-x64`, `darwin-arm64`, ...
pub fn platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{arch}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(env: &'a Env, home: Option<&'a Path>) -> ContextRequest<'a> {
        ContextRequest {
            env,
            home,
            cwd: Path::new("/work"),
            acc_executable: Path::new("/opt/acc/bin/acc"),
        }
    }

    #[test]
    fn pins_the_data_home_only_when_it_was_set() {
        let env = Env::new()
            .with("HOME", "/home/u")
            .with("ACC_DATA_HOME", "/data")
            .with("CODEX_HOME", "/c")
            .with("SECRET_TOKEN", "x");
        let ctx = build_context(&request(&env, None)).unwrap();
        assert_eq!(ctx.pinned_data_home, Some(PathBuf::from("/data")));
        assert_eq!(ctx.acc_data_dir, PathBuf::from("/data/acc"));
        assert_eq!(ctx.hook_executable, PathBuf::from("/opt/acc/bin/acc-hook"));
        assert_eq!(ctx.var("CODEX_HOME"), Some("/c"));
        assert_eq!(ctx.var("SECRET_TOKEN"), None);
        let env = Env::new()
            .with("HOME", "/home/u")
            .with("XDG_DATA_HOME", "/xdg");
        let ctx = build_context(&request(&env, None)).unwrap();
        assert_eq!(ctx.pinned_data_home, None);
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn home_flag_wins_and_moves_the_default_data_home_with_it() {
        let env = Env::new().with("HOME", "/home/u");
        let ctx = build_context(&request(&env, Some(Path::new("sandbox/../box")))).unwrap();
        assert_eq!(ctx.home, PathBuf::from("/work/box"));
        assert_eq!(ctx.var("HOME"), Some("/work/box"));
        assert_eq!(
            ctx.acc_data_dir,
            PathBuf::from("/work/box/.local/share/acc")
        );
    }

    #[test]
    fn no_home_is_a_usage_error() {
        let env = Env::new().with("HOME", "relative");
        let err = build_context(&request(&env, None)).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.message.contains("--home"));
    }

    #[test]
    fn a_missing_hook_runtime_is_refused_by_path() {
        let env = Env::new().with("HOME", "/home/u");
        let ctx = build_context(&request(&env, None)).unwrap();
        let err = require_hook_executable(&ctx).unwrap_err();
        assert_eq!(err.kind, InstallErrorKind::HookExecutableMissing);
        assert!(err.message.contains("/opt/acc/bin/acc-hook does not exist"));
    }
}
