//! The process walk finds Grok in the ancestry a real 0.2.111 hook had.

use acc_sdk::identity::StaticTable;
use acc_sdk::testing::process::entry;

#[test]
fn the_walk_finds_the_grok_binary_above_the_hook_shell() {
    let adapter = acc_adapter_grok::adapter();
    let binary = "/c/grok-0.2.111/venv/lib/python3.11/site-packages/grok_cli_bin/bin/grok";
    let table = StaticTable::new([
        entry(
            400,
            300,
            "acc-hook",
            &["/opt/acc/acc-hook", "grok", "PreToolUse"],
        ),
        entry(
            300,
            200,
            "sh",
            &["sh", "-c", "/opt/acc/acc-hook grok PreToolUse"],
        ),
        entry(200, 100, "grok", &[binary, "-p", "x", "--always-approve"]),
        entry(100, 1, "bash", &["bash"]),
    ]);
    let found = adapter.resolve_client(&table, 400).unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str()),
        (200, "grok")
    );
}
