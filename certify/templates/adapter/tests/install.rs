//! The install layout is where the client reads hooks, and its probe is the manifest's.

use acc_adapter_example::install::Install;
use acc_sdk::testing::install::{assert_probe_is_the_manifests, layout_paths};

#[test]
fn the_layout_is_where_the_client_reads_hooks() {
    let [hooks, skill] = layout_paths(&Install, &[]);
    assert!(hooks.ends_with("/hooks/acc.json"), "{hooks}");
    assert!(skill.ends_with("/skills/acc"), "{skill}");
    assert_probe_is_the_manifests::<Install>(include_str!("../adapter.json"));
}
