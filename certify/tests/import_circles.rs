//! No import circle between acc-certify's files, the recorder's included (the rule and the
//! scan: `tests/support/import_circles.rs`). `record_layout.rs` adds the recorder's layering.

#[macro_use]
#[path = "../../tests/support/import_circles.rs"]
mod import_circles;

import_circle_tests!(skip: &[], allowed: &[]);
