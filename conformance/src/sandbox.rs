//! A throwaway machine for one adapter: a home (a copy of a realistic pre-populated home,
//! or empty), a data home beside it, a workspace outside both, and a `PATH` holding only a
//! fake client that answers `--version`. Installs go through acc's real installer with an
//! explicit environment, exactly as `acc install --adapter <id>` would run there.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use acc_runtime::env::Env;
use acc_runtime::installer::{
    self, ContextRequest, InstallError, InstallOptions, RunReport, UninstallOptions,
};
use acc_sdk::define::Adapter;
use acc_sdk::install::InstallContext;
use tempfile::TempDir;

use crate::snapshot::TreeSnapshot;

/// The version the fake client reports.
pub const FAKE_CLIENT_VERSION: &str = "1.0.0";

pub struct Sandbox {
    _dir: TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub data: PathBuf,
    pub workspace: PathBuf,
    /// The only directory on the context's `PATH`: the fake client.
    pub clients: PathBuf,
    /// The directory of the `acc-hook` the install wires.
    pub bin: PathBuf,
    ctx: InstallContext,
}

impl Sandbox {
    /// A sandbox under `scratch` whose home is a copy of `home_fixture` (or empty), wired
    /// to run `hook_executable`.
    pub fn new(
        scratch: &Path,
        hook_executable: &Path,
        adapter: &Adapter,
        home_fixture: Option<&Path>,
    ) -> io::Result<Sandbox> {
        std::fs::create_dir_all(scratch)?;
        let dir = tempfile::Builder::new()
            .prefix("acc-sandbox-")
            .tempdir_in(scratch)?;
        let root = dir.path().canonicalize()?;
        let home = root.join("home");
        let data = root.join("data");
        let workspace = root.join("workspace");
        let clients = root.join("clients");
        for path in [&home, &data, &workspace, &clients] {
            std::fs::create_dir_all(path)?;
        }
        if let Some(fixture) = home_fixture {
            copy_tree(fixture, &home)?;
        }
        let command = &adapter.manifest().client.command;
        let fake = clients.join(command);
        std::fs::write(
            &fake,
            format!("#!/bin/sh\necho '{command} {FAKE_CLIENT_VERSION}'\n"),
        )?;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))?;

        let env = Env::new()
            .with("HOME", &path_text(&home))
            .with("ACC_DATA_HOME", &path_text(&data))
            .with("PATH", &path_text(&clients));
        let bin = hook_executable
            .parent()
            .unwrap_or(Path::new("/"))
            .to_path_buf();
        let acc = bin.join("acc");
        let mut ctx = installer::build_context(&ContextRequest {
            env: &env,
            home: None,
            cwd: &workspace,
            acc_executable: &acc,
        })
        .map_err(|e| io::Error::other(e.message))?;
        ctx.hook_executable = hook_executable.to_path_buf();
        installer::context::compose_receiver_sockets(&mut ctx, std::slice::from_ref(adapter));
        Ok(Sandbox {
            _dir: dir,
            root,
            home,
            data,
            workspace,
            clients,
            bin,
            ctx,
        })
    }

    pub fn context(&self) -> &InstallContext {
        &self.ctx
    }

    /// `acc install --adapter <id>` in this sandbox.
    pub fn install(&self, adapter: &Adapter) -> Result<RunReport, InstallError> {
        installer::run_install(
            &self.ctx,
            std::slice::from_ref(adapter),
            &InstallOptions {
                adapters: vec![adapter.id().to_owned()],
                dry_run: false,
                ..InstallOptions::default()
            },
        )
    }

    /// `acc uninstall --adapter <id>` in this sandbox.
    pub fn uninstall(&self, adapter: &Adapter) -> Result<RunReport, InstallError> {
        installer::run_uninstall(
            &self.ctx,
            std::slice::from_ref(adapter),
            &UninstallOptions {
                adapters: vec![adapter.id().to_owned()],
                dry_run: false,
                ..UninstallOptions::default()
            },
        )
    }

    pub fn home_snapshot(&self) -> io::Result<TreeSnapshot> {
        TreeSnapshot::take(&self.home)
    }

    /// The home and the data home, for read-only checks that must notice a write anywhere.
    pub fn machine_snapshot(&self) -> io::Result<(TreeSnapshot, TreeSnapshot)> {
        Ok((
            TreeSnapshot::take(&self.home)?,
            TreeSnapshot::take(&self.data)?,
        ))
    }

    /// Sandbox paths replaced by `<home>`, `<data>`, `<ws>`, `<clients>` and `<bin>`, so
    /// output is the same on every machine and every run.
    pub fn redact(&self, text: &str) -> String {
        let mut pairs = [
            (path_text(&self.home), "<home>"),
            (path_text(&self.data), "<data>"),
            (path_text(&self.workspace), "<ws>"),
            (path_text(&self.clients), "<clients>"),
            (path_text(&self.root), "<sandbox>"),
            (path_text(&self.bin), "<bin>"),
        ];
        // Longest first, so a path is never replaced by the name of its parent.
        pairs.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
        pairs
            .iter()
            .filter(|(path, _)| path.len() > 1)
            .fold(text.to_owned(), |acc, (path, name)| acc.replace(path, name))
    }

    pub fn redact_path(&self, path: &Path) -> String {
        self.redact(&path_text(path))
    }
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Copies a tree, keeping permission bits and symlinks.
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.map_err(io::Error::other)?;
        let rel = entry.path().strip_prefix(from).map_err(io::Error::other)?;
        let target = to.join(rel);
        let kind = entry.file_type();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
