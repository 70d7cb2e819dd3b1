//! No import circle between acc-certify's files (the rule and the scan:
//! `tests/support/import_circles.rs`). The recorder (`record/`) keeps a check of its own,
//! which allows circles of two files while its scenarios move into folders.

#[macro_use]
#[path = "../../tests/support/import_circles.rs"]
mod import_circles;

import_circle_tests!(skip: &["record"], allowed: &[]);
