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

/// Codex's shared app-server (`codex app-server --listen unix:// --managed-daemon`, which a
/// `codex` terminal starts as its own child when none runs, or `--enable remote_control
/// app-server --listen unix://`) hosts the threads of every terminal under its `CODEX_HOME`:
/// their hooks and shells descend from it, and it outlives each terminal. An app-server on
/// stdio lives and dies with the one client that started it.
#[test]
fn a_listening_app_server_is_a_shared_host_and_a_terminal_is_not() {
    let adapter = acc_adapter_codex::adapter();
    let native = "/h/.codex/packages/app-server-daemon/current/codex";
    let cases: [(&[&str], bool); 9] = [
        (
            &[
                native,
                "app-server",
                "--listen",
                "unix://",
                "--managed-daemon",
            ],
            true,
        ),
        (
            &[
                native,
                "--enable",
                "remote_control",
                "app-server",
                "--listen",
                "unix://",
            ],
            true,
        ),
        (
            &[native, "app-server", "--listen=ws://127.0.0.1:4500"],
            true,
        ),
        (&[native, "app-server"], false),
        (&[native, "app-server", "--listen", "stdio://"], false),
        (&[native], false),
        (&[native, "resume", "--last"], false),
        (&[native, "exec", "--listen", "unix://"], false),
        (&[native, "app-server explained"], false),
    ];
    for (args, shared) in cases {
        let e = entry(58, 1, "codex", args);
        assert_eq!(adapter.is_shared_host(&e), shared, "{args:?}");
    }
}
