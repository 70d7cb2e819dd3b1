//! The process walk finds Claude Code in the ancestry a real 2.1.332 hook had.

use acc_sdk::identity::StaticTable;
use acc_sdk::testing::process::entry;

#[test]
fn the_walk_finds_the_native_binary_above_the_hook_shell() {
    let adapter = acc_adapter_claude_code::adapter();
    let table = StaticTable::new([
        entry(
            400,
            300,
            "acc-hook",
            &["/opt/acc/acc-hook", "claude-code", "PreToolUse"],
        ),
        entry(
            300,
            200,
            "sh",
            &["/bin/sh", "-c", "/opt/acc/acc-hook claude-code PreToolUse"],
        ),
        entry(
            200,
            100,
            "claude",
            &[
                "/w/node_modules/.bin/claude",
                "-p",
                "x",
                "--permission-mode",
                "acceptEdits",
            ],
        ),
        entry(100, 1, "bash", &["bash"]),
    ]);
    let found = adapter.resolve_client(&table, 400).unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str()),
        (200, "claude-code")
    );
}
