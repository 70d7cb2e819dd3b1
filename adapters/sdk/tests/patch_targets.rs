//! Write targets of Codex `apply_patch` bodies.

use acc_sdk::patch_targets::apply_patch_targets;

fn targets(patch: &str) -> Option<Vec<String>> {
    apply_patch_targets(patch)
}

fn paths(list: &[&str]) -> Option<Vec<String>> {
    Some(list.iter().map(|s| s.to_string()).collect())
}

#[test]
fn the_real_codex_payload() {
    // tool_input.command of the PreToolUse payload Codex 0.171.0 sent (REAL-CLIENTS.md).
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
    let patch = "\n  \t*** Begin Patch\r\n*** Update File: a.rs \r\n*** Update File: a.rs\r\n*** Add File: dir with space/b.rs\r\n*** End Patch\r\n";
    assert_eq!(targets(patch), paths(&["a.rs", "dir with space/b.rs"]));
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
    assert_eq!(
        targets("*** Begin Patch\n*** Add File: \n*** End Patch"),
        Some(vec![])
    );
}
