//! Recognising the desktop variant among a hook's ancestors (unverified against a real
//! process: see COMPATIBILITY.md), and the variant's place in the manifest.

use std::path::PathBuf;

use acc_adapter_antigravity::Behaviour;
use acc_sdk::adapter::{AdapterBehaviour, ProcessEntry};
use acc_sdk::identity::StaticTable;

fn entry(comm: &str, exe: Option<&str>, args: &[&str]) -> ProcessEntry {
    ProcessEntry {
        pid: 50,
        ppid: 40,
        comm: comm.into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        exe: exe.map(PathBuf::from),
    }
}

#[test]
fn a_language_server_inside_an_antigravity_install_is_the_desktop_app() {
    let mac = "/Applications/Antigravity.app/Contents/Resources/app/extensions/antigravity/bin/language_server_macos_arm";
    let linux =
        "/usr/share/antigravity/resources/app/extensions/antigravity/bin/language_server_linux_x64";
    for (exe, args) in [
        (Some(mac), vec![mac, "--standalone"]),
        (None, vec![linux]),
        (Some(linux), vec![]),
    ] {
        let id = Behaviour
            .identify_client_process(&entry("language_server", exe, &args))
            .unwrap();
        assert_eq!(id.certification_name, "antigravity-desktop");
        assert_eq!(id.version, None, "the version is not guessed");
    }
}

#[test]
fn look_alikes_are_not_the_desktop_app() {
    for (comm, exe, args) in [
        // Another editor's language server of the same name.
        (
            "language_server",
            Some("/home/u/.codeium/windsurf/bin/language_server_linux_x64"),
            vec![],
        ),
        // The CLI itself is matched by its command, not identified as the variant.
        ("agy", Some("/usr/local/bin/agy"), vec!["agy"]),
        // Antigravity's own Electron main process is not the hook runner.
        (
            "Antigravity",
            Some("/Applications/Antigravity.app/Contents/MacOS/Antigravity"),
            vec![],
        ),
        // A path that merely mentions the name inside a component.
        (
            "language_server",
            Some("/opt/my-antigravity-fork/bin/language_server_linux_x64"),
            vec![],
        ),
        ("language_server", None, vec![]),
    ] {
        assert_eq!(
            Behaviour.identify_client_process(&entry(comm, exe, &args)),
            None,
            "{exe:?}"
        );
    }
}

#[test]
fn the_walk_resolves_the_variant_or_the_cli() {
    let adapter = acc_adapter_antigravity::adapter();
    let names = adapter.manifest().client.client_names();
    assert_eq!(names, ["antigravity-cli", "antigravity-desktop"]);
    let server =
        "/usr/share/antigravity/resources/app/extensions/antigravity/bin/language_server_linux_x64";
    let hook = |ppid| ProcessEntry {
        pid: 100,
        ppid,
        comm: "acc-hook".into(),
        args: vec![],
        exe: None,
    };
    let shell = |ppid| ProcessEntry {
        pid: 90,
        ppid,
        comm: "sh".into(),
        args: vec!["sh".into()],
        exe: None,
    };
    let desktop = StaticTable::new([
        hook(90),
        shell(80),
        ProcessEntry {
            pid: 80,
            ppid: 10,
            comm: "language_server".into(),
            args: vec![server.into()],
            exe: Some(server.into()),
        },
    ]);
    let resolved = adapter.resolve_client(&desktop, 100).unwrap();
    assert_eq!(
        (resolved.pid, resolved.certification_name.as_str()),
        (80, "antigravity-desktop")
    );
    let cli = StaticTable::new([
        hook(90),
        shell(70),
        ProcessEntry {
            pid: 70,
            ppid: 10,
            comm: "agy".into(),
            args: vec!["/usr/local/bin/agy".into()],
            exe: None,
        },
    ]);
    let resolved = adapter.resolve_client(&cli, 100).unwrap();
    assert_eq!(
        (resolved.pid, resolved.certification_name.as_str()),
        (70, "antigravity-cli")
    );
}
