//! Wiring the sandbox with acc's real installer, exactly as `acc install --adapter <id>`
//! would with the sandbox's environment: nothing is placed by hand.

use std::path::{Path, PathBuf};

use acc_runtime::env::Env;
use acc_runtime::installer::{self, ContextRequest, InstallOptions};
use acc_runtime::registry;

use crate::clients::Sandbox;
use crate::record::kit::error::RecordError;

/// The `acc` and `acc-hook` a recording runs: siblings of the running `acc-certify`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binaries {
    pub acc: PathBuf,
    pub hook: PathBuf,
}

impl Binaries {
    /// `acc` and `acc-hook` in `dir`; both must exist.
    pub fn in_dir(dir: &Path) -> Result<Binaries, RecordError> {
        let binaries = Binaries {
            acc: dir.join("acc"),
            hook: dir.join(acc_sdk::hook_command::HOOK_BINARY),
        };
        for path in [&binaries.acc, &binaries.hook] {
            if !path.is_file() {
                return Err(RecordError::MissingBinary { path: path.clone() });
            }
        }
        Ok(binaries)
    }

    /// Beside the running executable.
    pub fn beside_current_exe() -> Result<Binaries, RecordError> {
        let exe = std::env::current_exe().map_err(|e| {
            RecordError::Usage(format!("cannot locate the running acc-certify: {e}"))
        })?;
        Binaries::in_dir(exe.parent().unwrap_or(Path::new("/")))
    }
}

/// Installs `adapter_id` into the sandbox's home and data home; returns the files the
/// installer created or edited.
pub fn install_adapter(
    adapter_id: &str,
    sandbox: &Sandbox,
    binaries: &Binaries,
) -> Result<Vec<PathBuf>, RecordError> {
    install_adapter_with(adapter_id, sandbox, binaries, None)
}

/// [`install_adapter`] with `acc install --delivery <policy>`.
pub fn install_adapter_with(
    adapter_id: &str,
    sandbox: &Sandbox,
    binaries: &Binaries,
    delivery: Option<&str>,
) -> Result<Vec<PathBuf>, RecordError> {
    let fail = |message: String| RecordError::Install {
        adapter: adapter_id.to_owned(),
        message,
    };
    let mut env = Env::new();
    for (key, value) in sandbox.env() {
        env.set(&key, &value);
    }
    let adapters = registry::all();
    let workspace = sandbox.workspace();
    let mut ctx = installer::build_context(&ContextRequest {
        env: &env,
        home: None,
        cwd: &workspace,
        acc_executable: &binaries.acc,
    })
    .map_err(|e| fail(e.message))?;
    installer::context::compose_receiver_sockets(&mut ctx, &adapters);
    let options = InstallOptions {
        adapters: vec![adapter_id.to_owned()],
        dry_run: false,
        delivery: delivery.map(str::to_owned),
        ..InstallOptions::default()
    };
    let report = installer::run_install(&ctx, &adapters, &options).map_err(|e| fail(e.message))?;
    Ok(report
        .adapters
        .iter()
        .flat_map(|a| a.files.iter().map(|f| f.path.clone()))
        .collect())
}
