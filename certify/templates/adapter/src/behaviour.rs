//! What the adapter does for core: install, normalise, answer. Each method is the backing
//! of a capability (`acc-certify validate` names the one a declared capability lacks).

use acc_sdk::adapter::AdapterBehaviour;

use crate::{install, normalize, outcomes, tools};

#[derive(Debug, Clone, Copy, Default)]
pub struct Behaviour;

impl AdapterBehaviour for Behaviour {
    acc_sdk::delegate_behaviour! {
        install: install::Install,
        normalize: normalize::normalize,
        deny: outcomes::deny,
        inject: outcomes::inject,
        guard_write: tools::WRITE,
        guard_shell: tools::SHELL,
    }
}
