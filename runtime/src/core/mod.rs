//! The coordination core: participants, sessions, presence, intents, claims, messages and
//! receipts, delivery, attention, sync, status and pruning, on one [`Core`] handle.
//!
//! The core knows no client by name. Every mutation carries an [`Owner`] (session id and
//! generation) and runs in one `BEGIN IMMEDIATE` transaction; a mismatched generation or a
//! closed session is a conflict (exit 5). Reads never create the store.

pub mod attention;
pub mod bindings;
pub mod children;
pub mod claims;
pub mod decisions;
pub mod delivery;
pub mod events;
pub mod finish;
pub mod inbox;
pub mod intents;
pub mod messages;
pub mod model;
pub mod native;
pub mod path_spelling;
pub mod presence;
pub(crate) mod present;
pub mod prune;
pub mod receipts;
pub mod refusal_spool;
pub mod refusals;
pub mod replies;
pub mod resources;
pub mod room_view;
pub mod sessions;
pub mod status;
pub mod sync;
pub mod takeovers;

use crate::clock::{Clock, SystemClock};
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{Generation, IdKind, IdSource, RandomIds, SessionId};
use crate::paths;
use crate::store::{Genesis, OpenMode, Store, tamper};
use crate::workspace::WorkspaceDescriptor;
use presence::{PidProbe, SystemPidProbe};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The injected ports: time, ids and the pid probe.
#[derive(Clone)]
pub struct Ports {
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdSource>,
    pub pids: Arc<dyn PidProbe>,
}

impl Ports {
    /// The real clock, random ids and `kill(pid, 0)`.
    pub fn system() -> Self {
        Ports {
            clock: Arc::new(SystemClock),
            ids: Arc::new(RandomIds),
            pids: Arc::new(SystemPidProbe),
        }
    }

    pub(crate) fn now(&self) -> i64 {
        self.clock.now_ms()
    }
}

/// Who performs a mutation: a session and the generation it was opened with.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Owner {
    pub session: SessionId,
    pub generation: Generation,
}

impl Owner {
    pub fn new(session: SessionId, generation: Generation) -> Self {
        Owner {
            session,
            generation,
        }
    }
}

/// One process's handle on one workspace's store. Open one per process and route every read
/// and write through it.
/// Refuses (exit 2) a data home that is, or lies under, something other than a directory,
/// naming it: otherwise the store below it reads as unreadable and the advice to move the
/// store aside would point at a file that cannot exist.
fn refuse_non_directory_home(data_home: &Path) -> Result<()> {
    // The deepest part of the path that exists decides; the rest is created on first write.
    let Some((existing, meta)) = data_home
        .ancestors()
        .find_map(|a| std::fs::metadata(a).ok().map(|m| (a, m)))
    else {
        return Ok(());
    };
    if meta.is_dir() {
        return Ok(());
    }
    let message = if existing == data_home {
        format!(
            "the data home {} is not a directory; set ACC_DATA_HOME to a directory, or move the file aside",
            data_home.display()
        )
    } else {
        format!(
            "the data home {} cannot be created: {} is not a directory; set ACC_DATA_HOME to a directory, or move the file aside",
            data_home.display(),
            existing.display()
        )
    };
    Err(AccError::new(ErrorCode::DataHomeNotDirectory, message)
        .with("dataHome", data_home.display().to_string())
        .with("file", existing.display().to_string()))
}

pub struct Core {
    pub(crate) store: Store,
    pub(crate) ports: Ports,
    pub(crate) workspace: WorkspaceDescriptor,
}

impl Core {
    /// Opens the store of `workspace` under `data_home`. Refuses (exit 2) a data home inside
    /// a workspace root. [`OpenMode::ReadOnly`] never creates anything on disk.
    pub fn open(
        workspace: WorkspaceDescriptor,
        data_home: &Path,
        mode: OpenMode,
        ports: Ports,
    ) -> Result<Core> {
        paths::refuse_inside_roots(data_home, &workspace.roots)?;
        refuse_non_directory_home(data_home)?;
        let path = paths::store_file(data_home, &workspace.id);
        // A store that changed behind acc's back while guarded claims existed is marked
        // before anything is created over it ([`crate::store::tamper`]).
        let now_ms = ports.now();
        let ws = workspace.id.as_str();
        if let Some(shared) = &workspace.shared {
            let mut store = Store::open_shared(
                &shared.url,
                &path,
                &workspace.id,
                shared.repository.as_deref(),
                mode,
                || Genesis {
                    now_ms: ports.now(),
                    event_id: ports.ids.next(IdKind::Event),
                },
            )?;
            store.set_clock(ports.clock.clone());
            return Ok(Core {
                store,
                ports,
                workspace,
            });
        }
        if std::fs::symlink_metadata(&path).is_err() {
            tamper::on_missing(&path, ws, now_ms);
        }
        let mut store = Store::open(&path, &workspace.id, mode, || Genesis {
            now_ms: ports.now(),
            event_id: ports.ids.next(IdKind::Event),
        })
        .inspect_err(|e| {
            if e.code == ErrorCode::StoreForeign {
                let found = e.details.get("workspaceId").and_then(|v| v.as_str());
                tamper::on_foreign(&path, ws, found.unwrap_or("?"), now_ms);
            }
        })?;
        store.set_clock(ports.clock.clone());
        // Best effort: a store that cannot be read now fails the caller's own reads anyway.
        let _ = tamper::check_claims(&mut store, ws, now_ms);
        let mut core = Core {
            store,
            ports,
            workspace,
        };
        // Refusals the guard kept beside the store, before anything reads or writes events.
        if !core.store.is_ephemeral() {
            refusal_spool::drain_on_open(&mut core);
        }
        Ok(core)
    }

    pub fn workspace(&self) -> &WorkspaceDescriptor {
        &self.workspace
    }

    /// The store file (which may not exist after a read-only open).
    pub fn store_path(&self) -> &Path {
        self.store.path()
    }

    /// True when a read-only open found no store: every read is empty and nothing is written.
    pub fn store_is_absent(&self) -> bool {
        self.store.is_ephemeral()
    }

    /// How long each later statement waits for another process's lock before failing with
    /// `store_busy` (exit 3); [`crate::store::BUSY_TIMEOUT`] until set. A hook sets what is
    /// left of its deadline, so a locked store cannot outlast the client's patience.
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<()> {
        self.store.set_busy_timeout(timeout)
    }

    /// Runs `f` with the guarded-claims snapshot published once at its end instead of after
    /// each of its writes (see [`crate::store::guard_token`]).
    pub fn deferring_publication<T>(&mut self, f: impl FnOnce(&mut Core) -> T) -> T {
        let began = self.store.begin_deferral();
        let out = f(self);
        self.store.end_deferral(began);
        out
    }

    /// Reads up to `bytes` of the store through a memory map from now on (see
    /// [`crate::store::Store::set_mmap_size`]; 0 turns it off).
    pub fn set_mmap_size(&mut self, bytes: u64) -> Result<()> {
        self.store.set_mmap_size(bytes)
    }

    pub fn now_ms(&self) -> i64 {
        self.ports.now()
    }
}

#[cfg(test)]
pub(crate) mod testkit {
    //! A core on a temporary store with a manual clock, sequential ids and fake pids.
    use super::*;
    use crate::clock::ManualClock;
    use crate::ids::{ParticipantId, SequentialIds};
    use crate::workspace::{WorkspaceSource, hashed_id};
    use presence::tests::FakeProbe;
    use sessions::OpenSession;

    pub const T0: i64 = 1_796_211_840_000;

    pub struct Kit {
        pub core: Core,
        pub clock: Arc<ManualClock>,
        pub pids: Arc<FakeProbe>,
        pub _dir: tempfile::TempDir,
    }

    pub fn kit() -> Kit {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        let root = root.canonicalize().unwrap();
        let ws = WorkspaceDescriptor {
            id: hashed_id(&root),
            roots: vec![root.clone()],
            source: WorkspaceSource::Directory,
            display_name: "repo".into(),
            policy: None,
            git: None,
            config_path: None,
            config: None,
            shared: None,
        };
        let clock = Arc::new(ManualClock::at(T0));
        let pids = Arc::new(FakeProbe::default());
        let ports = Ports {
            clock: clock.clone(),
            ids: Arc::new(SequentialIds::default()),
            pids: pids.clone(),
        };
        let core = Core::open(ws, &dir.path().join("data"), OpenMode::ReadWrite, ports).unwrap();
        Kit {
            core,
            clock,
            pids,
            _dir: dir,
        }
    }

    impl Kit {
        /// Opens a session for `participant` with the CLI's cadence and no pid.
        pub fn attach(&mut self, participant: &str) -> Owner {
            let req = OpenSession::new(ParticipantId::parse(participant).unwrap(), "test", 30_000);
            let s = self.core.open_session(req).unwrap();
            Owner::new(s.session_id, s.generation)
        }

        pub fn attach_guarded(&mut self, participant: &str) -> Owner {
            let mut req =
                OpenSession::new(ParticipantId::parse(participant).unwrap(), "test", 30_000);
            req.enforcement = model::Enforcement::Guarded;
            let s = self.core.open_session(req).unwrap();
            Owner::new(s.session_id, s.generation)
        }

        pub fn count(&mut self, sql: &str) -> i64 {
            self.core
                .store
                .read(|c| Ok(c.query_row(sql, [], |r| r.get(0))?))
                .unwrap()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_home_that_is_not_a_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("home-file");
        std::fs::write(&file, b"x").unwrap();
        let e = refuse_non_directory_home(&file).unwrap_err();
        assert_eq!(e.code, ErrorCode::DataHomeNotDirectory);
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message,
            format!(
                "the data home {} is not a directory; set ACC_DATA_HOME to a directory, or move the file aside",
                file.display()
            )
        );
        let below = file.join("acc-home");
        let e = refuse_non_directory_home(&below).unwrap_err();
        assert!(
            e.message
                .contains(&format!("{} is not a directory", file.display())),
            "{}",
            e.message
        );
        assert_eq!(e.details["file"], file.display().to_string());
        refuse_non_directory_home(dir.path()).unwrap();
        refuse_non_directory_home(&dir.path().join("not/yet/there")).unwrap();
    }
}
