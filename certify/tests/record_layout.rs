//! The recorder's layers (`src/record`): its kit imports nothing above itself, so a scenario
//! is a folder of its own that the kit never names. Circles are the house rule's
//! (`import_circles.rs`, which covers the recorder too); the graph is the same scan
//! (`tests/support/import_circles.rs`).

#[path = "../../tests/support/import_circles.rs"]
mod import_circles;

use std::path::Path;

/// Every edge from the kit to a module outside it and outside the scenario list it
/// implements (`record/scenario`), as `from -> to`.
fn kit_upward(src: &Path) -> Vec<String> {
    let mut upward = Vec::new();
    for (from, targets) in import_circles::graph(src, &[]) {
        if !from.starts_with("record/kit") {
            continue;
        }
        for to in targets {
            let below = to.starts_with("record/kit") || to == "record/scenario";
            if to.starts_with("record") && !below {
                upward.push(format!("{from} -> {to}"));
            }
        }
    }
    upward
}

#[test]
fn kit_imports_nothing_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_circles::graph(&src, &[]);
    // The scan sees the tree: the layers are there and a scenario reaches the kit.
    assert!(graph.contains_key("record/kit/recipe"));
    assert!(
        graph["record/scenarios/lifecycle"]
            .iter()
            .any(|to| to.starts_with("record/kit")),
        "a scenario's import of the kit is an edge"
    );
    let upward = kit_upward(&src);
    assert!(upward.is_empty(), "kit reaches above itself: {upward:#?}");
}

/// The check finds a kit file that reaches into a scenario.
#[test]
fn a_kit_file_reaching_a_scenario_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("record/kit")).unwrap();
    std::fs::create_dir_all(src.join("record/scenarios")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod record;\n").unwrap();
    std::fs::write(
        src.join("record/mod.rs"),
        "pub mod kit;\npub mod scenario;\npub mod scenarios;\n",
    )
    .unwrap();
    std::fs::write(src.join("record/scenario.rs"), "pub enum Scenario {}\n").unwrap();
    std::fs::write(src.join("record/scenarios/mod.rs"), "pub mod a;\n").unwrap();
    std::fs::write(
        src.join("record/scenarios/a.rs"),
        "use crate::record::kit::b::Thing;\npub struct A;\n",
    )
    .unwrap();
    std::fs::write(src.join("record/kit/mod.rs"), "pub mod b;\n").unwrap();
    std::fs::write(
        src.join("record/kit/b.rs"),
        "use crate::record::scenario::Scenario;\npub struct Thing;\n",
    )
    .unwrap();
    assert!(
        kit_upward(src).is_empty(),
        "the scenario list is below the kit"
    );
    std::fs::write(
        src.join("record/kit/b.rs"),
        "pub struct Thing;\nfn f() -> crate::record::scenarios::a::A { todo!() }\n",
    )
    .unwrap();
    assert_eq!(kit_upward(src), ["record/kit/b -> record/scenarios/a"]);
}
