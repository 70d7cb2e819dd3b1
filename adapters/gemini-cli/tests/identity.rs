//! The process walk finds Gemini CLI in the ancestry a real 0.61.0 hook had.

use acc_sdk::identity::StaticTable;
use acc_sdk::testing::process::entry;

#[test]
fn the_walk_stops_at_the_relaunched_node_child() {
    let adapter = acc_adapter_gemini_cli::adapter();
    let table = StaticTable::new([
        entry(
            400,
            300,
            "acc-hook",
            &["/opt/acc/acc-hook", "gemini-cli", "BeforeTool"],
        ),
        entry(
            300,
            200,
            "node",
            &[
                "/usr/bin/node",
                "--max-old-space-size=12052",
                "/w/node_modules/.bin/gemini",
                "-p",
                "x",
                "--yolo",
            ],
        ),
        entry(
            200,
            100,
            "node",
            &["node", "/w/node_modules/.bin/gemini", "-p", "x", "--yolo"],
        ),
        entry(100, 1, "bash", &["bash"]),
    ]);
    let found = adapter.resolve_client(&table, 400).unwrap();
    assert_eq!(
        (found.pid, found.certification_name.as_str()),
        (300, "gemini-cli")
    );
}
