//! The declaration half: the shipped directory validates, every true capability stands on a
//! real, intact capture, and the capability shape is the fourteen booleans, all false for a
//! client older than every capture.

use acc_sdk::capabilities::{Capability, CapabilityGroup};
use acc_sdk::certification::digest::sha256_hex;
use acc_sdk::certification::provenance::ProvenanceFile;
use acc_sdk::certification::validate_adapter_dir;
use acc_sdk::define::{Adapter, AdapterDir};
use acc_sdk::error::{CERTIFICATION_FILE, MANIFEST_FILE};
use acc_sdk::resolution::ClientFacts;
use serde_json::Value;

use crate::check::{Outcome, Problems};
use crate::context::CheckContext;

/// The version older than every real client: nothing may be granted there.
pub const OLDEST_VERSION: &str = "0.0.1";

pub fn manifest_valid(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let id = adapter.id();
    let dir = ctx.adapter_dir(id);
    if !dir.is_dir() {
        return Outcome::fail(
            None,
            format!(
                "adapters/{id}/ does not exist: every adapter ships its directory with {MANIFEST_FILE}, {CERTIFICATION_FILE}, fixtures/ and COMPATIBILITY.md"
            ),
        );
    }
    let problems = validate_adapter_dir(&dir);
    if let Some(first) = problems.first() {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| {
                let field = if p.field.is_empty() {
                    String::new()
                } else {
                    format!("{}: ", p.field)
                };
                format!(
                    "adapters/{id}/{}: {field}{} [{}]",
                    p.file, p.message, p.code
                )
            })
            .collect();
        return Outcome::fail(
            Some(ctx.adapter_file(id, &first.file)),
            format!("{}; fix these files", lines.join("; ")),
        );
    }
    match AdapterDir::load(&dir) {
        Ok(on_disk) if &on_disk.declaration == adapter.declaration() => Outcome::Pass,
        Ok(_) => Outcome::fail(
            Some(ctx.adapter_file(id, MANIFEST_FILE)),
            format!(
                "adapters/{id}/{MANIFEST_FILE} or {CERTIFICATION_FILE} differs from what this build embeds: rebuild (cargo build --workspace) so the binary carries the files on disk"
            ),
        ),
        Err(problems) => {
            let lines: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
            Outcome::fail(
                Some(ctx.adapter_file(id, MANIFEST_FILE)),
                format!("adapters/{id} does not load: {}", lines.join("; ")),
            )
        }
    }
}

pub fn evidence_backed(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let id = adapter.id();
    let declared: Vec<Capability> = adapter.manifest().capabilities.enabled().collect();
    if declared.is_empty() {
        return Outcome::not_applicable("the adapter declares no capability true");
    }
    let dir = ctx.adapter_dir(id);
    let primary = adapter.manifest().client.primary();
    let mut problems = Problems::new(Some(ctx.adapter_file(id, CERTIFICATION_FILE)));
    for cap in declared {
        let rows: Vec<_> = adapter
            .certification()
            .rows(primary, cap.key())
            .filter(|r| r.passed())
            .collect();
        if rows.is_empty() {
            problems.push(format!(
                "{cap} is declared true in adapters/{id}/{MANIFEST_FILE} but no evidence row of {primary} passes: record it (acc-certify record) or declare it false"
            ));
            continue;
        }
        let intact = rows.iter().any(|row| {
            let fixture = dir.join(&row.fixture);
            let Ok(bytes) = std::fs::read(&fixture) else {
                return false;
            };
            let provenance = std::fs::read(dir.join(&row.provenance))
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .and_then(|v| ProvenanceFile::from_value(&row.provenance, &v).ok());
            provenance.is_some_and(|p| {
                p.select(&row.provenance_id)
                    .any(|rec| rec.fixture == row.fixture && rec.sha256 == sha256_hex(&bytes))
            })
        });
        if !intact {
            let fixtures: Vec<String> = rows
                .iter()
                .map(|r| format!("adapters/{id}/{}", r.fixture))
                .collect();
            problems.push(format!(
                "{cap} is declared true but none of its passing captures ({}) exists with the sha256 its provenance record names: re-record it with acc-certify record",
                fixtures.join(", ")
            ));
        }
    }
    problems.into_outcome()
}

pub fn capability_shape(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let id = adapter.id();
    let mut problems = Problems::new(Some(ctx.adapter_file(id, MANIFEST_FILE)));
    let facts = ClientFacts {
        client_version: Some(OLDEST_VERSION.to_owned()),
        platform: acc_runtime::installer::context::platform(),
        client_name: None,
    };
    let effective = adapter.effective_capabilities(&facts);
    let shape = effective.to_json();
    let groups = shape.as_object().map(|g| g.len()).unwrap_or(0);
    if groups != CapabilityGroup::ALL.len() {
        problems.push(format!("the capability shape has {groups} groups, not 4"));
    }
    let mut keys = 0;
    for group in CapabilityGroup::ALL {
        let members = shape.get(group.as_str()).and_then(Value::as_object);
        let expected: Vec<&str> = group.members().map(|c| c.name()).collect();
        let found: Vec<&str> = members
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        if found != expected {
            problems.push(format!(
                "group {} has keys {found:?}, not {expected:?}",
                group.as_str()
            ));
        }
        for (name, value) in members.into_iter().flatten() {
            keys += 1;
            if !value.is_boolean() {
                problems.push(format!("{}.{name} is not a boolean", group.as_str()));
            }
        }
    }
    if keys != Capability::ALL.len() {
        problems.push(format!("the capability shape has {keys} keys, not 14"));
    }
    let granted: Vec<&str> = effective.enabled().map(|c| c.key()).collect();
    if !granted.is_empty() {
        problems.push(format!(
            "at client version {OLDEST_VERSION} these are granted: {}; evidence applies forward from the version it was recorded at, so a row at {OLDEST_VERSION} cannot be a real capture",
            granted.join(", ")
        ));
    }
    problems.into_outcome()
}
