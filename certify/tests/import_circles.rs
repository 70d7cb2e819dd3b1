//! No import circle between acc-certify's files (the rule and the scan:
//! `tests/support/import_circles.rs`). The recorder (`record/`) keeps a check of its own,
//! which allows circles of two files while its scenarios move into folders.

#[path = "../../tests/support/import_circles.rs"]
mod import_circles;

use std::path::Path;

#[test]
fn no_import_circle_outside_the_recorder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    import_circles::assert_circles(&src, &["record"], &[]);
}

#[test]
fn a_planted_circle_is_caught() {
    import_circles::planted_circle_is_caught();
}
