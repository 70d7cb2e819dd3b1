//! The process walk finds Codex in the ancestry a real 0.171.0 hook had.

use acc_sdk::identity::StaticTable;
use acc_sdk::testing::process::entry;

#[test]
fn the_walk_stops_at_the_native_binary_not_the_npm_launcher() {
    let adapter = acc_adapter_codex::adapter();
    let native =
        "/w/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
    let table = StaticTable::new([
        entry(
            400,
            300,
            "acc-hook",
            &["/opt/acc/acc-hook", "codex", "PreToolUse"],
        ),
        entry(
            300,
            200,
            "codex",
            &[native, "exec", "--skip-git-repo-check", "x"],
        ),
        entry(
            200,
            100,
            "node",
            &["node", "/w/node_modules/.bin/codex", "exec", "x"],
        ),
        entry(100, 1, "bash", &["bash"]),
    ]);
    let found = adapter.resolve_client(&table, 400).unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str()),
        (300, "codex-cli")
    );
}
