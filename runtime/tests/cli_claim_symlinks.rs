//! One `acc claim` looks at each path component once (`paths::remember_real_paths`, held
//! over the whole claim command): the cwd, the data home, the worktree root and the claimed
//! file, resolved by the judge from the proof, the caller check and the store path, are
//! still resolved through symlinks the way a fresh resolution would, whichever path the
//! claim takes, and the next claim looks again.

mod common;
mod serve_support;

use common::{Run, Sandbox};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// `owner`'s claim of `resource` from `cwd` with the data home `data`, not yet run.
fn claim_command(
    sb: &Sandbox,
    owner: &(String, String),
    cwd: &Path,
    data: &Path,
    resource: &str,
) -> std::process::Command {
    let mut c = std::process::Command::new(common::acc_bin());
    c.env_clear()
        .env("ACC_DATA_HOME", data)
        .env("ACC_TEST_CLOCK", sb.clock.as_deref().unwrap())
        .env("ACC_SESSION", &owner.0)
        .env("ACC_GENERATION", &owner.1)
        .arg("--cwd")
        .arg(cwd)
        .args(["claim", "--resource", resource]);
    c
}

/// `owner` claims `resource` from `cwd` with the data home `data`, naming its path.
fn claim_from(
    sb: &Sandbox,
    owner: &(String, String),
    cwd: &Path,
    data: &Path,
    resource: &str,
) -> Run {
    let mut c = claim_command(sb, owner, cwd, data, resource);
    Run::from(c.env("ACC_BENCH_CLAIM_PATH", "1").output().unwrap())
}

/// [`claim_from`], handed to the server of `data` (`ACC_SERVE=1`).
fn served_claim_from(
    sb: &Sandbox,
    owner: &(String, String),
    cwd: &Path,
    data: &Path,
    resource: &str,
) -> Run {
    let mut c = claim_command(sb, owner, cwd, data, resource);
    Run::from(c.env("ACC_SERVE", "1").output().unwrap())
}

/// The path the claim named, and its stderr without that line.
fn split(r: &Run) -> (&str, String) {
    let path = r
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("acc claim path: "))
        .unwrap_or("unnamed");
    let rest: String = r
        .stderr
        .lines()
        .filter(|l| !l.starts_with("acc claim path: "))
        .map(|l| format!("{l}\n"))
        .collect();
    (path, rest)
}

struct Linked {
    sb: Sandbox,
    alice: (String, String),
    bob: (String, String),
    /// `<tmp>/via-project` -> the workspace.
    cwd_link: PathBuf,
    /// `<tmp>/via-data` -> the data home.
    data_link: PathBuf,
}

impl Linked {
    /// Bob's claim of `resource`, from the linked cwd with the linked data home.
    fn bob_claims(&self, resource: &str) -> Run {
        claim_from(
            &self.sb,
            &self.bob,
            &self.cwd_link,
            &self.data_link,
            resource,
        )
    }
}

/// Alice holds `file:src/real.rs`; the workspace has `src/alias.rs` -> `real.rs` and
/// `lnk` -> `src`; the workspace and the data home each have a symlink outside them.
fn linked() -> Linked {
    let sb = Sandbox::new();
    let ws = sb.ws_path();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/real.rs"), "").unwrap();
    std::fs::write(ws.join("src/other.rs"), "").unwrap();
    symlink("real.rs", ws.join("src/alias.rs")).unwrap();
    symlink("src", ws.join("lnk")).unwrap();
    let alice = sb.attach("alice", &[]);
    let bob = sb.attach("bob", &[]);
    let held = sb.run_as(&alice, &["claim", "--resource", "file:src/real.rs"]);
    assert_eq!(held.code, 0, "{}", held.stderr);
    let root = sb.tmp.path().canonicalize().unwrap();
    let cwd_link = root.join("via-project");
    let data_link = root.join("via-data");
    symlink(&ws, &cwd_link).unwrap();
    symlink(sb.data_path(), &data_link).unwrap();
    Linked {
        sb,
        alice,
        bob,
        cwd_link,
        data_link,
    }
}

#[test]
fn a_claim_through_symlinked_cwd_data_home_and_file_is_refused_as_the_real_paths_are() {
    let l = linked();
    let (ws, data) = (l.sb.ws_path(), l.sb.data_path());
    let real = claim_from(&l.sb, &l.bob, &ws, &data, "file:src/real.rs");
    assert_eq!(real.code, 5, "{}", real.stderr);
    let (real_path, real_err) = split(&real);
    assert_eq!(real_path, "proof");
    for resource in ["file:src/alias.rs", "file:lnk/real.rs", "file:lnk/alias.rs"] {
        for (cwd, home) in [
            (&l.cwd_link, &data),
            (&ws, &l.data_link),
            (&l.cwd_link, &l.data_link),
        ] {
            let r = claim_from(&l.sb, &l.bob, cwd, home, resource);
            let (path, err) = split(&r);
            assert_eq!(
                (r.code, path, &err),
                (5, "proof", &real_err),
                "{resource} from {} with {}",
                cwd.display(),
                home.display()
            );
        }
    }
    // Without the token the store path judges, with the same resolution: the same bytes.
    let token = l.sb.db_path().with_file_name("guard-token");
    std::fs::remove_file(&token).unwrap();
    let r = l.bob_claims("file:lnk/alias.rs");
    let (path, err) = split(&r);
    assert_eq!((r.code, &err), (5, &real_err), "{}", r.stderr);
    assert_ne!(path, "proof", "judged by the store without a token");
}

#[test]
fn a_claim_granted_through_symlinks_holds_the_real_file_in_the_real_store() {
    let l = linked();
    symlink("other.rs", l.sb.ws_path().join("src/other-alias.rs")).unwrap();
    let r = l.bob_claims("file:lnk/other-alias.rs");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "claimed file:src/other.rs");
    // The one store, seen through the real paths: alice is refused the real file.
    let (ws, data) = (l.sb.ws_path(), l.sb.data_path());
    let again = claim_from(&l.sb, &l.alice, &ws, &data, "file:src/other.rs");
    assert_eq!(again.code, 5, "{}", again.stderr);
    assert!(
        again.stderr.contains("held exclusive by bob"),
        "{}",
        again.stderr
    );
    assert_eq!(
        l.sb.store_files()
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n == "acc.db"))
            .count(),
        1,
        "no second store under the linked data home"
    );
}

#[test]
fn a_link_repointed_between_claims_is_resolved_again_by_the_next_claim() {
    let l = linked();
    let ws = l.sb.ws_path();
    let alias = ws.join("src/alias.rs");
    let r = l.bob_claims("file:src/alias.rs");
    assert_eq!(r.code, 5, "{}", r.stderr);
    // Repointed to a file nobody holds: the next claim follows the new link.
    std::fs::remove_file(&alias).unwrap();
    symlink("other.rs", &alias).unwrap();
    let r = l.bob_claims("file:src/alias.rs");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "claimed file:src/other.rs");
    // The workspace link repointed to another directory: another workspace, another store,
    // where nothing is held and the sessions are unknown.
    let elsewhere = l.sb.tmp.path().canonicalize().unwrap().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("src")).unwrap();
    std::fs::remove_file(&l.cwd_link).unwrap();
    symlink(&elsewhere, &l.cwd_link).unwrap();
    let r = l.bob_claims("file:src/real.rs");
    let (path, err) = split(&r);
    assert_eq!(
        path, "store-no-proof",
        "not the first workspace's proof: {}",
        r.stderr
    );
    assert!(
        r.code != 0 && err.contains("is unknown in this workspace"),
        "bob has no session there: {err}"
    );
}

/// The server runs one request after another on the same worker thread: what one served
/// claim looked at is never what the next one judges.
#[test]
fn a_link_repointed_between_served_claims_is_resolved_again_by_the_server() {
    let l = linked();
    let (ws, data) = (l.sb.ws_path(), l.sb.data_path());
    let _server = serve_support::Server::start(&data, &[]);
    let alias = ws.join("src/alias.rs");
    let repoint = |to: &str| {
        std::fs::remove_file(&alias).unwrap();
        symlink(to, &alias).unwrap();
    };
    let r = served_claim_from(&l.sb, &l.bob, &ws, &data, "file:src/alias.rs");
    assert_eq!(r.code, 5, "{}", r.stderr);
    repoint("other.rs");
    let r = served_claim_from(&l.sb, &l.bob, &ws, &data, "file:src/alias.rs");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.trim(), "claimed file:src/other.rs");
    // Back to alice's file: refused again, not judged from the last request's look.
    repoint("real.rs");
    let r = served_claim_from(&l.sb, &l.bob, &ws, &data, "file:src/alias.rs");
    assert_eq!(r.code, 5, "{}", r.stderr);
    assert!(r.stderr.contains("held exclusive by alice"), "{}", r.stderr);
    assert_eq!(
        serve_support::served(&data),
        Some(3),
        "every claim was served"
    );
}

#[test]
fn a_data_home_linked_inside_the_workspace_is_still_refused() {
    let l = linked();
    // The data home's link points into the workspace: acc never keeps state there.
    let inside = l.sb.ws_path().join("state");
    std::fs::create_dir_all(&inside).unwrap();
    let link = l.sb.tmp.path().canonicalize().unwrap().join("via-inside");
    symlink(&inside, &link).unwrap();
    let r = claim_from(&l.sb, &l.bob, &l.cwd_link, &link, "file:src/real.rs");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("is inside the workspace root"),
        "{}",
        r.stderr
    );
    assert!(
        std::fs::read_dir(&inside).unwrap().next().is_none(),
        "nothing written inside the workspace"
    );
}
