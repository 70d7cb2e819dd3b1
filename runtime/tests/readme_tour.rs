//! The README's tour, run exactly as written: the shell block between the tour markers is
//! executed with bash, and its output must match the `# ` lines under each command (`…`
//! stands for any text).

mod common;

use std::path::PathBuf;
use std::process::Command;

fn tour_block() -> String {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let start = readme
        .find("<!-- tour:begin -->")
        .expect("README has a tour");
    let end = readme.find("<!-- tour:end -->").expect("the tour ends");
    let section = &readme[start..end];
    let body = section.split("```sh\n").nth(1).expect("a sh block");
    body.split("```").next().unwrap().to_string()
}

/// `expected` with `…` matching any run of characters.
fn matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split('…').collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first)
        || !actual.ends_with(last)
        || actual.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn the_readme_tour_runs_as_written() {
    let block = tour_block();
    let expected: Vec<&str> = block.lines().filter_map(|l| l.strip_prefix("# ")).collect();
    assert!(expected.len() >= 6, "the tour documents its output");
    let tmp = tempfile::tempdir().unwrap();
    let bin_dir = common::acc_bin().parent().unwrap().to_path_buf();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("set -euo pipefail\nexec 2>&1\n{block}"))
        .current_dir(tmp.path())
        .env_clear()
        .env("PATH", path)
        .env("HOME", tmp.path())
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "the tour failed:\n{stdout}");
    let actual: Vec<&str> = stdout.lines().collect();
    assert_eq!(actual.len(), expected.len(), "output:\n{stdout}");
    for (e, a) in expected.iter().zip(&actual) {
        assert!(matches(e, a), "expected {e:?}\n     got {a:?}");
    }
    assert!(
        common::walk(tmp.path())
            .iter()
            .any(|p| p.ends_with("acc.db")),
        "the tour used its own data home"
    );
}

/// Issue 18: started inside a git repository, the tour keeps out of it, and the shell that
/// ran it has no `ACC_DATA_HOME` and the same directory afterwards.
#[test]
fn the_tour_leaves_the_shell_as_it_was_and_keeps_out_of_a_repository() {
    let block = tour_block();
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    assert!(
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&repo)
            .status()
            .unwrap()
            .success()
    );
    let before = common::walk(&repo);
    let bin_dir = common::acc_bin().parent().unwrap().to_path_buf();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "set -euo pipefail\nexec 2>&1\n{block}\necho \"after: ${{ACC_DATA_HOME:-unset}} $PWD\""
        ))
        .current_dir(&repo)
        .env_clear()
        .env("PATH", path)
        .env("HOME", tmp.path())
        .env("TMPDIR", &scratch)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "the tour failed:\n{stdout}");
    let last = stdout.lines().last().unwrap();
    assert_eq!(last, format!("after: unset {}", repo.display()));
    let watch = stdout
        .lines()
        .find(|l| l.starts_with("acc watch · "))
        .unwrap();
    assert!(!watch.contains("repo"), "the tour's workspace: {watch}");
    assert_eq!(
        common::walk(&repo),
        before,
        "nothing written in the repository"
    );
}

#[test]
fn wildcard_matching() {
    assert!(matches("a … b … c", "a 1 b 2 c"));
    assert!(matches("recorded message_…", "recorded message_x"));
    assert!(!matches("a … b", "a 1 c"));
    assert!(matches("plain", "plain"));
    assert!(!matches("plain", "plain!"));
}
