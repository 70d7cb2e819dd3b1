//! What one recording is of: a client build on a platform, and the stable names of every
//! file its evidence lives in.

use std::path::Path;

use acc_sdk::error::MANIFEST_FILE;
use acc_sdk::manifest::Manifest;
use serde::Serialize;

use crate::record::kit::error::RecordError;

use crate::record::scenario::Scenario;

/// The provenance file every adapter keeps its capture records in.
pub const PROVENANCE_PATH: &str = "fixtures/certification-provenance.json";

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Tuple {
    /// The adapter directory's id (`codex`).
    pub adapter: String,
    /// The client's certification name (`codex-cli`), as evidence rows name it.
    pub client: String,
    /// The exact version read from the binary.
    pub version: String,
    /// `linux-x64`, `darwin-arm64`, ...
    pub platform: String,
}

impl Tuple {
    /// `<client>-<version>-<platform>`.
    pub fn label(&self) -> String {
        format!("{}-{}-{}", self.client, self.version, self.platform)
    }

    /// `fixtures/captures/<scenario>/<client>-<version>-<platform>.json`, relative to the
    /// adapter directory.
    pub fn fixture_path(&self, scenario: Scenario) -> String {
        format!("fixtures/captures/{scenario}/{}.json", self.label())
    }

    /// `<scenario>-<version with dots as dashes>-<platform>`.
    pub fn provenance_id(&self, scenario: Scenario) -> String {
        let version: String = self
            .version
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        format!("{scenario}-{version}-{}", self.platform)
    }

    /// `captures/<client>-<version>-<platform>/<scenario>`, relative to the repository.
    pub fn bundle_path(&self, scenario: Scenario) -> String {
        format!("captures/{}/{scenario}", self.label())
    }
}

/// This machine as evidence names platforms.
pub fn current_platform() -> String {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}-{arch}")
}

/// Today's UTC date, `YYYY-MM-DD`.
pub fn today_utc() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    acc_runtime::clock::to_iso(ms)[..10].to_owned()
}

/// The client's certification name from its adapter's `adapter.json`.
pub fn certification_name(adapter_dir: &Path) -> Result<String, RecordError> {
    let path = adapter_dir.join(MANIFEST_FILE);
    let bytes = std::fs::read(&path).map_err(|e| RecordError::Write {
        message: format!("{}: {e}", path.display()),
    })?;
    let manifest = Manifest::from_bytes(&bytes).map_err(|problems| RecordError::Write {
        message: format!(
            "{}: {}",
            path.display(),
            problems
                .iter()
                .map(|p| p.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        ),
    })?;
    Ok(manifest.client.primary().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(version: &str) -> Tuple {
        Tuple {
            adapter: "codex".into(),
            client: "codex-cli".into(),
            version: version.into(),
            platform: "linux-x64".into(),
        }
    }

    #[test]
    fn names_follow_the_evidence_layout() {
        let t = tuple("0.171.0");
        assert_eq!(t.label(), "codex-cli-0.171.0-linux-x64");
        assert_eq!(
            t.fixture_path(Scenario::GuardWrite),
            "fixtures/captures/guard-write/codex-cli-0.171.0-linux-x64.json"
        );
        assert_eq!(
            t.provenance_id(Scenario::NextTurn),
            "next-turn-0-171-0-linux-x64"
        );
        assert_eq!(
            tuple("1.2.3-RC.1+b7").provenance_id(Scenario::Lifecycle),
            "lifecycle-1-2-3-rc-1-b7-linux-x64"
        );
        assert_eq!(
            t.bundle_path(Scenario::SoloControl),
            "captures/codex-cli-0.171.0-linux-x64/solo-control"
        );
    }

    #[test]
    fn the_platform_and_date_have_the_evidence_shape() {
        assert!(acc_sdk::certification::lexical::is_evidence_platform(
            &current_platform()
        ));
        let today = today_utc();
        assert!(
            acc_sdk::certification::lexical::is_observed_at(&today),
            "{today}"
        );
        assert_eq!(today.len(), 10);
    }
}
