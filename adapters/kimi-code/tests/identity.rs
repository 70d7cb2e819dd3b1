//! Kimi Code renames its process to `kimi-code`, so the walk must recognise that title.

use acc_adapter_kimi_code::Behaviour;
use acc_sdk::adapter::AdapterBehaviour;
use acc_sdk::identity::StaticTable;
use acc_sdk::testing::process::entry;

#[test]
fn the_renamed_process_is_the_primary_client() {
    let adapter = acc_adapter_kimi_code::adapter();
    let primary = adapter.manifest().client.primary().to_owned();
    let id = Behaviour
        .identify_client_process(&entry(30, 1, "kimi-code", &["kimi-code"]))
        .unwrap();
    assert_eq!(
        (id.certification_name.as_str(), id.version),
        (primary.as_str(), None)
    );
    // The observed ancestry: hook -> sh -c -> kimi-code.
    let table = StaticTable::new([
        entry(50, 40, "hook.sh", &["/bin/sh", "/x/hook.sh"]),
        entry(40, 30, "sh", &["/bin/sh", "-c", "/x/hook.sh PreToolUse"]),
        entry(30, 20, "kimi-code", &["kimi-code"]),
        entry(20, 2, "bash", &["bash"]),
    ]);
    let resolved = adapter.resolve_client(&table, 50).unwrap();
    assert_eq!(
        (resolved.pid, resolved.certification_name.as_str()),
        (30, "kimi-code")
    );
}

#[test]
fn other_processes_are_not_kimi_code() {
    for (comm, args) in [
        ("node", vec!["node", "/x/node_modules/.bin/kimi"]),
        ("kimi", vec!["kimi"]),
        ("kimi-codex", vec!["kimi-codex"]),
        ("sh", vec!["sh", "-c", "kimi-code"]),
    ] {
        assert_eq!(
            Behaviour.identify_client_process(&entry(9, 1, comm, &args)),
            None,
            "{comm}"
        );
    }
}
