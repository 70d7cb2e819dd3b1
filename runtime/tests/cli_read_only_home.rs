//! Issue 13: a read-only data home. `acc status`, `acc inbox` and `acc doctor` read it;
//! a command that would change the store fails with a message naming the directory, and
//! nothing is created beside the store.
//!
//! The kernel lets root write anywhere, so when the tests run as root the reading commands
//! run as `nobody` through `setpriv`; otherwise the permissions alone make the home
//! read-only.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/run.rs"]
mod run;
use run::Run;

struct Home {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
    workspace: PathBuf,
}

fn acc(home: &Home, as_nobody: bool, session: Option<(&str, &str)>, args: &[&str]) -> Run {
    let mut command = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_acc"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_acc"))
    };
    command
        .args(args)
        .env_clear()
        .env("HOME", &home.home)
        .env("ACC_DATA_HOME", &home.data)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&home.workspace);
    if let Some((s, g)) = session {
        command.env("ACC_SESSION", s).env("ACC_GENERATION", g);
    }
    Run::from(command.output().unwrap())
}

fn attach(home: &Home, who: &str) -> (String, String) {
    let out = acc(home, false, None, &["attach", "--participant", who]);
    let mut words = out.ok().split_whitespace();
    (
        words.next().unwrap().to_owned(),
        words.next().unwrap().to_owned(),
    )
}

fn set_mode_all(root: &Path, dirs: u32, files: u32) {
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        let mode = if entry.file_type().is_dir() {
            dirs
        } else {
            files
        };
        std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

#[test]
fn readers_read_a_read_only_data_home_and_writers_name_its_directory() {
    let root_user = unsafe { libc::geteuid() } == 0;
    if root_user && Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: running as root without setpriv, nothing here is read-only");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let home = Home {
        home: root.join("home"),
        data: root.join("data"),
        workspace: root.join("workspace"),
        _tmp: tmp,
    };
    for dir in [&home.home, &home.workspace] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let alice = attach(&home, "alice");
    let bob = attach(&home, "bob");
    acc(
        &home,
        false,
        Some((&alice.0, &alice.1)),
        &[
            "message",
            "--to",
            "bob",
            "--subject",
            "hello",
            "--body",
            "read me",
        ],
    )
    .ok();
    set_mode_all(&home.data, 0o555, 0o444);
    // The store's directory (beside it, the snapshot's witness file).
    let store_dir = std::fs::read_dir(home.data.join("acc/workspaces"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(&store_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing();

    let status = acc(&home, root_user, None, &["status"]);
    assert!(status.ok().contains("claim(s)"), "{}", status.stdout);
    let inbox = acc(&home, root_user, Some((&bob.0, &bob.1)), &["inbox"]);
    assert!(
        inbox.ok().contains("1 unresolved message(s)"),
        "{}",
        inbox.stdout
    );
    let doctor = acc(&home, root_user, None, &["doctor"]);
    assert!(doctor.ok().contains("store: healthy"), "{}", doctor.stdout);

    let claim = acc(
        &home,
        root_user,
        Some((&alice.0, &alice.1)),
        &["claim", "--resource", "file:README.md"],
    );
    assert_eq!(claim.code, 4, "{}", claim.stderr);
    assert!(
        claim.stderr.contains(&format!(
            "the directory {} holding the acc store is read-only",
            store_dir.display()
        )),
        "{}",
        claim.stderr
    );
    let json = acc(
        &home,
        root_user,
        Some((&alice.0, &alice.1)),
        &["claim", "--resource", "file:README.md", "--json"],
    )
    .json();
    assert_eq!(
        json["error"]["details"]["directory"],
        store_dir.display().to_string()
    );
    assert_eq!(listing(), before, "nothing was created beside the store");
    set_mode_all(&home.data, 0o755, 0o644);
}
