//! Which client runs this hook, and which version it is, found at `sessionStart` only.
//!
//! The probe walks the hook's process ancestry with the adapter's `resolve_client`, then
//! asks for the version in the SDK's order (what `identify_client_process` said, then
//! `client_version_of`, then the client's own executable, then `client.command` on `PATH`).
//! It runs on its own thread under a sub-budget of `min(1 s, remaining)`: a version command
//! that hangs costs the session its version, never the hook its deadline. Later events read
//! what `sessionStart` stored in the binding instead of probing again.

use super::settings::ProcessSource;
use acc_sdk::define::Adapter;
use acc_sdk::identity::{
    ProcessTable, executable_name, run_version_command, session_version, system_process_table,
};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What the probe learned; every field may be unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientProbe {
    /// The process the agent's hooks and tools run under: the client's own, or the shared
    /// host that runs them (what the authority check looks for among a caller's ancestors).
    pub pid: Option<u32>,
    /// `pid` is a shared host (see `AdapterBehaviour::is_shared_host`), not the client.
    pub shared_host: bool,
    /// The product's certification name (a variant's when the adapter recognised one).
    pub certification_name: Option<String>,
    pub version: Option<String>,
}

impl ClientProbe {
    /// The pid whose life is the session's: the client's own process, never a shared host.
    pub fn session_pid(&self) -> Option<u32> {
        self.pid.filter(|_| !self.shared_host)
    }

    /// The shared host the session's hooks run under, when that is what the walk found.
    pub fn host_pid(&self) -> Option<u32> {
        self.pid.filter(|_| self.shared_host)
    }
}

/// Probes within `budget`, returning whatever was known when it ran out.
pub fn probe(
    adapter: Arc<Adapter>,
    processes: ProcessSource,
    env: BTreeMap<String, String>,
    budget: Duration,
) -> ClientProbe {
    if budget.is_zero() {
        return ClientProbe::default();
    }
    let deadline = Instant::now() + budget;
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("acc-hook-probe".into())
        .spawn(move || probe_now(&adapter, &processes, &env, budget, &tx));
    if spawned.is_err() {
        return ClientProbe::default();
    }
    // The walk reports first and the version after it, so a hung version command still
    // leaves the pid.
    let mut best = ClientProbe::default();
    while let Ok(update) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        best = update;
    }
    best
}

fn probe_now(
    adapter: &Adapter,
    processes: &ProcessSource,
    env: &BTreeMap<String, String>,
    budget: Duration,
    tx: &mpsc::Sender<ClientProbe>,
) {
    let (table, hook_pid): (Box<dyn ProcessTable>, u32) = match processes {
        ProcessSource::System => (system_process_table(), std::process::id()),
        ProcessSource::SystemFrom(pid) => (system_process_table(), *pid),
        ProcessSource::Fixed { table, hook_pid } => (Box::new(table.as_ref().clone()), *hook_pid),
    };
    let client = &adapter.manifest().client;
    let resolved = adapter.resolve_client(table.as_ref(), hook_pid);
    let mut found = ClientProbe {
        pid: resolved.as_ref().map(|r| r.pid),
        shared_host: resolved
            .as_ref()
            .is_some_and(|r| adapter.is_shared_host(&r.entry)),
        certification_name: resolved.as_ref().map(|r| r.certification_name.clone()),
        version: None,
    };
    let _ = tx.send(found.clone());
    found.version = match &resolved {
        Some(r) => session_version(r, client, adapter.behaviour(), env, budget),
        None => on_path(&client.command, env)
            .and_then(|exe| run_version_command(&exe, &client.version_args, env, budget)),
    };
    let _ = tx.send(found);
}

/// `command` on the `PATH` of `env` (a hook's environment may carry none).
fn on_path(command: &str, env: &BTreeMap<String, String>) -> Option<PathBuf> {
    let name = executable_name(command);
    std::env::split_paths(env.get("PATH")?)
        .map(|dir| dir.join(&name))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::adapter::ProcessEntry;
    use acc_sdk::define::define_adapter;
    use acc_sdk::define::testing::{TestBehaviour, certification_json, manifest_json};
    use acc_sdk::identity::StaticTable;

    fn adapter(command: &str) -> Arc<Adapter> {
        Arc::new(
            define_adapter(
                &manifest_json("probe-test", command, &[]),
                &certification_json(vec![]),
                TestBehaviour::new()
                    .version_of(|pid, _, _| (pid == 40).then(|| "3.2.1".to_string()))
                    .boxed(),
            )
            .unwrap(),
        )
    }

    fn entry(pid: u32, ppid: u32, comm: &str) -> ProcessEntry {
        ProcessEntry {
            pid,
            ppid,
            comm: comm.into(),
            args: vec![comm.into()],
            exe: None,
        }
    }

    fn fixed(entries: Vec<ProcessEntry>, hook_pid: u32) -> ProcessSource {
        ProcessSource::Fixed {
            table: Arc::new(StaticTable::new(entries)),
            hook_pid,
        }
    }

    #[test]
    fn walks_to_the_client_and_asks_it_for_its_version() {
        let table = fixed(
            vec![
                entry(50, 45, "acc-hook"),
                entry(45, 40, "sh"),
                entry(40, 2, "democlient"),
            ],
            50,
        );
        let got = probe(
            adapter("democlient"),
            table,
            BTreeMap::new(),
            Duration::from_secs(1),
        );
        assert_eq!(got.pid, Some(40));
        assert_eq!(got.certification_name.as_deref(), Some("democlient-cli"));
        assert_eq!(got.version.as_deref(), Some("3.2.1"));
    }

    fn entry_args(pid: u32, ppid: u32, args: &[&str]) -> ProcessEntry {
        ProcessEntry {
            pid,
            ppid,
            comm: "codex".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            exe: None,
        }
    }

    fn codex_probe(entries: Vec<ProcessEntry>) -> ClientProbe {
        let env = BTreeMap::from([("PATH".to_string(), "/nonexistent-acc-path".to_string())]);
        probe(
            Arc::new(acc_adapter_codex::adapter()),
            fixed(entries, 60),
            env,
            Duration::from_secs(1),
        )
    }

    /// The ancestry of a hook Codex runs in its shared app-server: the terminal that started
    /// the server is its parent until it exits (then pid 1), and other terminals attach to it
    /// without being its ancestors. The session's life is not the server's.
    #[test]
    fn a_hook_under_codexs_shared_app_server_records_no_client_pid() {
        let daemon = [
            "/h/.codex/packages/app-server-daemon/current/codex",
            "app-server",
            "--listen",
            "unix://",
            "--managed-daemon",
        ];
        for server_parent in [40, 1] {
            let got = codex_probe(vec![
                entry(60, 59, "acc-hook"),
                entry(59, 58, "sh"),
                entry_args(58, server_parent, &daemon),
                entry_args(40, 30, &["/usr/bin/codex"]),
                entry(30, 1, "bash"),
            ]);
            assert_eq!(got.pid, Some(58), "the agent's tools run under the server");
            assert!(got.shared_host);
            assert_eq!(
                got.session_pid(),
                None,
                "parent {server_parent}: not the server, nor the terminal that started it"
            );
            assert_eq!(got.host_pid(), Some(58));
        }
    }

    #[test]
    fn a_hook_codex_runs_itself_records_the_terminal() {
        let got = codex_probe(vec![
            entry(60, 59, "acc-hook"),
            entry(59, 40, "sh"),
            entry_args(
                40,
                30,
                &["/usr/bin/codex", "--disable", "daemon_auto_start"],
            ),
            entry(30, 1, "bash"),
        ]);
        assert!(!got.shared_host);
        assert_eq!((got.session_pid(), got.host_pid()), (Some(40), None));
    }

    #[test]
    fn no_client_in_the_ancestry_and_nothing_on_path_is_all_unknown() {
        let table = fixed(vec![entry(50, 45, "acc-hook"), entry(45, 2, "sh")], 50);
        let env = BTreeMap::from([("PATH".to_string(), "/nonexistent-acc-path".to_string())]);
        let got = probe(adapter("democlient"), table, env, Duration::from_secs(1));
        assert_eq!(got, ClientProbe::default());
    }

    #[cfg(unix)]
    #[test]
    fn the_path_probe_reads_the_version_and_a_hung_one_is_abandoned() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, body: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        write("quickclient", "echo 'quickclient v9.8.7 (build)'");
        write("slowclient", "exec /bin/sleep 30");
        let env = BTreeMap::from([("PATH".to_string(), dir.path().display().to_string())]);
        let nobody = fixed(vec![entry(50, 2, "acc-hook")], 50);
        let got = probe(
            adapter("quickclient"),
            nobody.clone(),
            env.clone(),
            Duration::from_secs(3),
        );
        assert_eq!(got.version.as_deref(), Some("9.8.7"));
        let started = Instant::now();
        let got = probe(
            adapter("slowclient"),
            nobody,
            env,
            Duration::from_millis(200),
        );
        assert_eq!(got.version, None);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "abandoned, not awaited"
        );
    }
}
