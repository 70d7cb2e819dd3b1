//! The process walk finds Qwen Code in the ancestry a 0.24.4 hook has: the relaunched
//! `node --expose-gc …/cli.js` child, not the `qwen` wrapper above it.

use acc_sdk::identity::StaticTable;
use acc_sdk::testing::process::entry;

#[test]
fn the_walk_stops_at_the_relaunched_bundle() {
    let adapter = acc_adapter_qwen_code::adapter();
    let table = StaticTable::new([
        entry(
            400,
            300,
            "acc-hook",
            &["/opt/acc/acc-hook", "qwen-code", "PreToolUse"],
        ),
        entry(
            350,
            300,
            "sh",
            &["/bin/sh", "-c", "/opt/acc/acc-hook qwen-code PreToolUse"],
        ),
        entry(
            300,
            200,
            "node",
            &[
                "/usr/bin/node",
                "--expose-gc",
                "/w/node_modules/@qwen-code/qwen-code/cli.js",
                "-p",
                "x",
                "--yolo",
            ],
        ),
        entry(
            200,
            100,
            "node",
            &["node", "/w/node_modules/.bin/qwen", "-p", "x", "--yolo"],
        ),
        entry(100, 1, "bash", &["bash"]),
    ]);
    let found = adapter.resolve_client(&table, 400).unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str()),
        (300, "qwen-code")
    );
    // Without the relaunch the wrapper itself is the client, by its command.
    let direct = StaticTable::new([
        entry(
            400,
            200,
            "acc-hook",
            &["/opt/acc/acc-hook", "qwen-code", "Stop"],
        ),
        entry(200, 100, "node", &["node", "/w/node_modules/.bin/qwen"]),
        entry(100, 1, "bash", &["bash"]),
    ]);
    assert_eq!(adapter.resolve_client(&direct, 400).unwrap().pid, 200);
}

#[test]
fn another_packages_cli_js_is_not_qwen() {
    let adapter = acc_adapter_qwen_code::adapter();
    let table = StaticTable::new([
        entry(
            400,
            300,
            "acc-hook",
            &["/opt/acc/acc-hook", "qwen-code", "Stop"],
        ),
        entry(300, 1, "node", &["node", "/w/node_modules/other/cli.js"]),
    ]);
    assert!(adapter.resolve_client(&table, 400).is_none());
}
