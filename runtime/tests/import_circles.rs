//! No import circle between the runtime's files (the rule and the scan:
//! `tests/support/import_circles.rs`).

#[path = "../../tests/support/import_circles.rs"]
mod import_circles;

use std::path::Path;

#[test]
fn the_runtime_has_no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    import_circles::assert_circles(&src, &[], &[]);
}

#[test]
fn a_planted_circle_is_caught() {
    import_circles::planted_circle_is_caught();
}
