//! Every scenario in a folder of its own, and the one place that maps a name to its
//! implementation ([`recipe`]). Both the folders' modules and the match are written from the
//! list in [`crate::record::scenario`], so adding a scenario is its folder and its line in
//! that list; `registry_tests` prove no name is left without a folder and an implementation.

use std::path::Path;

use crate::record::kit::observations::{Expectations, Observations};
use crate::record::kit::recipe::{Recipe, judged};
use crate::record::kit::verdict::Verdict;
use crate::record::output::bundle::{BundleError, read_observations};
use crate::record::scenario::{Scenario, each_scenario};

macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $folder:ident::$implementation:ident,)*) => {
        $(pub mod $folder;)*

        /// The implementation of `scenario`: the one match over the enum.
        pub fn recipe(scenario: Scenario) -> &'static dyn Recipe {
            match scenario {
                $(Scenario::$variant => &$folder::$implementation,)*
            }
        }
    };
}

each_scenario!(registry);

/// Judges one scenario's observations. Observations of another schema or scenario, or of
/// a run that left 127.0.0.1, fail every capability the scenario is about.
pub fn judge(scenario: Scenario, obs: &Observations) -> Vec<Verdict> {
    judged(recipe(scenario), obs)
}

/// Judges a raw bundle (`captures/<client>-<version>-<platform>/<scenario>/`) again from its
/// `observations.json`, with the scenario it names.
pub fn judge_bundle(dir: &Path) -> Result<Vec<Verdict>, BundleError> {
    let obs = read_observations(dir)?;
    Ok(judge(obs.scenario, &obs))
}

/// What `scenario` sets up, for the judge.
pub fn expectations(scenario: Scenario) -> Expectations {
    recipe(scenario).expectations()
}

#[cfg(test)]
mod judge_tests;
#[cfg(test)]
mod registry_tests;
