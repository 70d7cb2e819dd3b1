//! Write targets of Codex `apply_patch` bodies, by the grammar Codex's own parser accepts
//! (codex-rs/apply-patch): what it accepts is read, what it refuses is refused.

use acc_shell_reader::patch_targets::{apply_patch_targets, read_apply_patch};

fn targets(patch: &str) -> Option<Vec<String>> {
    apply_patch_targets(patch)
}

fn paths(list: &[&str]) -> Option<Vec<String>> {
    Some(list.iter().map(|s| s.to_string()).collect())
}

#[test]
fn the_real_codex_payload() {
    // tool_input.command of the PreToolUse payload Codex 0.171.0 sent (docs/research/real-clients-run.md).
    let patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n";
    assert_eq!(targets(patch), paths(&["hello.txt"]));
}

#[test]
fn every_file_operation() {
    let patch = "\
*** Begin Patch
*** Add File: src/new.rs
+pub fn new() {}
*** Update File: src/lib.rs
@@ fn main
-    old();
+    new();
*** Delete File: src/old.rs
*** Update File: docs/a.md
*** Move to: docs/b.md
@@
-a
+b
*** End Patch
";
    assert_eq!(
        targets(patch),
        paths(&[
            "src/new.rs",
            "src/lib.rs",
            "src/old.rs",
            "docs/a.md",
            "docs/b.md"
        ])
    );
}

#[test]
fn hunk_lines_that_look_like_headers_are_content() {
    let patch = "*** Begin Patch\n*** Add File: notes.md\n+*** Delete File: precious.rs\n+ *** Add File: x\n*** End Patch";
    assert_eq!(targets(patch), paths(&["notes.md"]));
}

#[test]
fn whitespace_crlf_and_duplicates() {
    let patch = "\n  \t*** Begin Patch\r\n*** Update File: a.rs \r\n@@\r\n-x\r\n*** Update File: a.rs\r\n+y\r\n*** Add File: dir with space/b.rs\r\n*** End Patch\r\n";
    assert_eq!(targets(patch), paths(&["a.rs", "dir with space/b.rs"]));
}

#[test]
fn headers_with_leading_whitespace_are_headers() {
    // Codex trims each hunk header before reading it.
    let patch = "*** Begin Patch\n   *** Add File: src/a.rs\n+a\n\t*** Delete File: src/b.rs\n  *** Update File: src/c.rs\n@@\n-c\n+C\n *** End Patch";
    assert_eq!(targets(patch), paths(&["src/a.rs", "src/b.rs", "src/c.rs"]));
}

#[test]
fn a_patch_wrapped_in_a_heredoc_is_unwrapped() {
    for opener in ["<<EOF", "<<'EOF'", "<<\"EOF\""] {
        let patch = format!(
            "{opener}\n*** Begin Patch\n*** Update File: src/old.rs\n*** Move to: src/new.rs\n@@\n-a\n+b\n*** End Patch\nEOF\n"
        );
        assert_eq!(
            targets(&patch),
            paths(&["src/old.rs", "src/new.rs"]),
            "{opener}"
        );
    }
}

#[test]
fn a_move_writes_both_sides() {
    let patch = "*** Begin Patch\n*** Update File: src/guarded.rs\n*** Move to: elsewhere.rs\n x\n*** End Patch";
    assert_eq!(targets(patch), paths(&["src/guarded.rs", "elsewhere.rs"]));
}

#[test]
fn what_codex_refuses_is_refused_with_a_reason() {
    for (body, why) in [
        (
            "*** Begin Patch\n*** Update File: a.rs\n*** End Patch",
            "no change lines",
        ),
        (
            "*** Begin Patch\n*** Add File: \n*** End Patch",
            "hunk header",
        ),
        (
            "*** Begin Patch\n*** Frobnicate: a.rs\n*** End Patch",
            "hunk header",
        ),
        ("*** Begin Patch\n*** Add File: a.rs\n+a", "End Patch"),
        (
            "*** Begin Patch\n*** Update File: a.rs\nnot a change\n*** End Patch",
            "change line",
        ),
        (
            "*** Begin Patch\n*** Update File: a.rs\n-a\nstray\n*** End Patch",
            "`@@`",
        ),
        ("<<EOF\n*** Begin Patch\n*** Add File: a\nEOF", "End Patch"),
    ] {
        let reason = read_apply_patch(body).expect_err(body).to_string();
        assert!(reason.contains(why), "{body:?}: {reason}");
        assert!(reason.contains("apply_patch"), "{reason}");
    }
}

#[test]
fn not_a_patch() {
    for body in [
        "",
        "   ",
        "printf 'hello\\n' > hello.txt",
        "echo '*** Begin Patch'",
        "x\n*** Begin Patch\n*** Add File: a\n*** End Patch",
        "*** Begin Patches\n*** Add File: a",
    ] {
        assert_eq!(targets(body), None, "{body:?}");
    }
}

#[test]
fn a_patch_with_no_file_operations_writes_nothing() {
    assert_eq!(targets("*** Begin Patch\n*** End Patch\n"), Some(vec![]));
}
