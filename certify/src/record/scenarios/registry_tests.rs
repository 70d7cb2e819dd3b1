//! The registry: every name has its implementation, in a folder of its own, and the
//! implementations keep what the enum's methods used to say.

use crate::record::scenario::Scenario;
use std::path::Path;

use acc_sdk::capabilities::Capability;

use super::*;
use crate::record::scenario::AGENT;

#[test]
fn every_name_has_one_implementation_answering_to_it() {
    for scenario in Scenario::ALL {
        assert_eq!(recipe(scenario).scenario(), scenario, "{scenario}");
    }
}

/// Adding a scenario is its folder and its names: the folder is named for the scenario, so
/// a new name without a folder (or a folder left behind) fails here.
#[test]
fn every_scenario_lives_in_a_folder_named_for_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/record/scenarios");
    let mut folders: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut names: Vec<String> = Scenario::ALL
        .iter()
        .map(|s| s.name().replace('-', "_"))
        .collect();
    names.sort();
    assert_eq!(folders, names);
}

#[test]
fn only_the_delivery_scenarios_name_candidates() {
    assert!(recipe(Scenario::GuardWrite).candidates().is_empty());
    assert_eq!(
        recipe(Scenario::SoloControl).candidates(),
        recipe(Scenario::NextTurn).candidates()
    );
    assert!(recipe(Scenario::SoloControl).capabilities().is_empty());
    assert!(!recipe(Scenario::SoloControl).has_peer());
    assert_eq!(recipe(Scenario::NextTurn).pinned_participant(), Some(AGENT));
}

/// Which capabilities each scenario decides: the evidence rows and `--check` read these.
#[test]
fn each_capability_is_decided_by_one_scenario() {
    let mut decided: Vec<Capability> = Scenario::ALL
        .iter()
        .flat_map(|s| recipe(*s).capabilities().iter().copied())
        .collect();
    let count = decided.len();
    decided.sort();
    decided.dedup();
    assert_eq!(decided.len(), count, "a capability decided twice");
    let none: Vec<Scenario> = Scenario::ALL
        .into_iter()
        .filter(|s| recipe(*s).capabilities().is_empty())
        .collect();
    assert_eq!(
        none,
        [
            Scenario::GuardOpaque,
            Scenario::SoloControl,
            Scenario::Coordinate,
            Scenario::InteractiveQuit,
            Scenario::GuardBridge
        ]
    );
}
