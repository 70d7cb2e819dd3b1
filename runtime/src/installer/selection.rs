//! Which adapters a run acts on: the ones named with `--adapter` (unknown names refused),
//! or, without any, every client detection finds; and the reason for each one skipped.

use acc_sdk::define::Adapter;
use acc_sdk::install::{Detection, InstallContext};

use super::error::{InstallError, InstallErrorKind};
use super::report::ClientFacts;

/// The adapters with the requested ids, sorted by id and without repeats.
pub fn named<'a>(
    adapters: &'a [Adapter],
    requested: &[String],
) -> Result<Vec<&'a Adapter>, InstallError> {
    let mut out: Vec<&Adapter> = Vec::new();
    for id in requested {
        let Some(adapter) = adapters.iter().find(|a| a.id() == id) else {
            let known: Vec<&str> = adapters.iter().map(Adapter::id).collect();
            return Err(InstallError::new(
                InstallErrorKind::Usage,
                format!(
                    "there is no adapter `{id}`; the adapters are {}",
                    known.join(", ")
                ),
            ));
        };
        if !out.iter().any(|a| a.id() == adapter.id()) {
            out.push(adapter);
        }
    }
    out.sort_by(|a, b| a.id().cmp(b.id()));
    Ok(out)
}

/// Runs every adapter's detection at once: each may wait up to its probe timeout, and the
/// waits need not add up.
pub fn detect_all(ctx: &InstallContext, adapters: &[&Adapter]) -> Vec<Detection> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = adapters
            .iter()
            .map(|adapter| scope.spawn(move || adapter.behaviour().detect(ctx)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Detection {
                    detail: "detection failed".to_owned(),
                    ..Detection::default()
                })
            })
            .collect()
    })
}

pub fn facts(detection: &Detection) -> ClientFacts {
    ClientFacts {
        present: detection.present,
        version: detection.version.clone(),
        detail: detection.detail.clone(),
    }
}

/// Why `acc install` without `--adapter` leaves a client alone.
pub fn not_detected_reason(
    adapter: &Adapter,
    detection: &Detection,
    home: Option<&std::path::Path>,
) -> String {
    format!(
        "{} is not installed on this machine ({}); if it is, wire it with: {}",
        adapter.manifest().display_name,
        detection.detail,
        super::report::command_for("install", &[adapter.id().to_owned()], home).unwrap_or_default()
    )
}
