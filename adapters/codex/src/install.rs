//! Where this client reads acc's wiring, and how acc writes, checks and removes it.
//!
//! Placeholder until the installer work lands: every function has its final signature.

use std::path::PathBuf;

use acc_sdk::adapter::AdapterError;
use acc_sdk::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};

pub fn detect(_ctx: &InstallContext) -> Detection {
    Detection::default()
}

pub fn plan(_ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
    Ok(InstallPlan::default())
}

pub fn install(_ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
    Ok(InstallReport::default())
}

pub fn uninstall(_ctx: &InstallContext, _keep: &[PathBuf]) -> Result<InstallReport, AdapterError> {
    Ok(InstallReport::default())
}

pub fn doctor(_ctx: &InstallContext) -> DoctorReport {
    DoctorReport::default()
}
