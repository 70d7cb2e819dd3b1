//! No import circle between the SDK's files (the rule and the scan:
//! `tests/support/import_circles.rs`).

#[macro_use]
#[path = "../../../tests/support/import_circles.rs"]
mod import_circles;

import_circle_tests!(skip: &[], allowed: &[]);
