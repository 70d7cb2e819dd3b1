//! The part of the evidence that grant resolution and the declaration checks read: per row
//! its client, version, platform, capability and result, nothing else.
//!
//! A hook resolves a handful of grants per process; parsing and validating the whole
//! `certification.json` (fixtures, provenance, limitations) for that was most of an
//! adapter's construction. Shipped adapters embed this table, generated and validated at
//! build time by [`super::compile`], and parse the full file only when asked for it.

use std::borrow::Cow;

use super::{Certification, EvidenceResult};

/// What resolution reads of one evidence row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowFacts<'a> {
    pub version: &'a str,
    pub platform: &'a str,
    pub passed: bool,
}

/// Evidence that can be asked for one client's rows of one capability, in file order.
/// Implemented by the full [`Certification`] and by the [`EvidenceTable`], so resolution has
/// one implementation and the two can be compared.
pub trait EvidenceRows {
    fn rows_of<'a>(
        &'a self,
        client: &'a str,
        capability: &'a str,
    ) -> impl Iterator<Item = RowFacts<'a>> + 'a;
}

/// One row of the table. The fields are borrowed for a table compiled into the binary and
/// owned for one derived from a parsed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceEntry {
    pub client: Cow<'static, str>,
    pub version: Cow<'static, str>,
    pub platform: Cow<'static, str>,
    /// `group.name`, as written in the file (checked against the fourteen when defining).
    pub capability: Cow<'static, str>,
    pub result: EvidenceResult,
}

impl EvidenceEntry {
    /// The form the build script writes, usable in a `static`.
    pub const fn compiled(
        client: &'static str,
        version: &'static str,
        platform: &'static str,
        capability: &'static str,
        result: EvidenceResult,
    ) -> Self {
        Self {
            client: Cow::Borrowed(client),
            version: Cow::Borrowed(version),
            platform: Cow::Borrowed(platform),
            capability: Cow::Borrowed(capability),
            result,
        }
    }

    pub fn passed(&self) -> bool {
        self.result == EvidenceResult::Pass
    }
}

/// The evidence rows resolution needs, in the file's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvidenceTable {
    entries: Cow<'static, [EvidenceEntry]>,
}

impl EvidenceTable {
    /// A table compiled into the binary; its file was validated when it was generated.
    pub const fn compiled(entries: &'static [EvidenceEntry]) -> Self {
        Self {
            entries: Cow::Borrowed(entries),
        }
    }

    pub fn entries(&self) -> &[EvidenceEntry] {
        &self.entries
    }
}

impl Certification {
    /// The rows' resolution facts, in file order.
    pub fn table(&self) -> EvidenceTable {
        let entries = self
            .evidence
            .iter()
            .map(|r| EvidenceEntry {
                client: Cow::Owned(r.client.clone()),
                version: Cow::Owned(r.version.clone()),
                platform: Cow::Owned(r.platform.clone()),
                capability: Cow::Owned(r.capability.clone()),
                result: r.result,
            })
            .collect::<Vec<_>>();
        EvidenceTable {
            entries: Cow::Owned(entries),
        }
    }
}

impl EvidenceRows for EvidenceTable {
    fn rows_of<'a>(
        &'a self,
        client: &'a str,
        capability: &'a str,
    ) -> impl Iterator<Item = RowFacts<'a>> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.client == client && e.capability == capability)
            .map(|e| RowFacts {
                version: &e.version,
                platform: &e.platform,
                passed: e.passed(),
            })
    }
}

impl EvidenceRows for Certification {
    fn rows_of<'a>(
        &'a self,
        client: &'a str,
        capability: &'a str,
    ) -> impl Iterator<Item = RowFacts<'a>> + 'a {
        self.rows(client, capability).map(|r| RowFacts {
            version: &r.version,
            platform: &r.platform,
            passed: r.passed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::Capability;
    use crate::define::testing::{certification_json, evidence_row};

    fn certification() -> Certification {
        Certification::from_value(&certification_json(vec![
            evidence_row("a-cli", "1.0.0", "linux-x64", Capability::BeforeShell, true),
            evidence_row("b-cli", "1.0.0", "linux-x64", Capability::BeforeShell, true),
            evidence_row(
                "a-cli",
                "2.0.0",
                "darwin-arm64",
                Capability::BeforeShell,
                false,
            ),
            evidence_row("a-cli", "2.0.0", "linux-x64", Capability::NextTurn, true),
        ]))
        .unwrap()
    }

    #[test]
    fn the_table_keeps_every_row_in_order_with_its_resolution_facts() {
        let table = certification().table();
        let got: Vec<(&str, &str, &str, &str, bool)> = table
            .entries()
            .iter()
            .map(|e| {
                (
                    &*e.client,
                    &*e.version,
                    &*e.platform,
                    &*e.capability,
                    e.passed(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a-cli", "1.0.0", "linux-x64", "guards.beforeShell", true),
                ("b-cli", "1.0.0", "linux-x64", "guards.beforeShell", true),
                (
                    "a-cli",
                    "2.0.0",
                    "darwin-arm64",
                    "guards.beforeShell",
                    false
                ),
                ("a-cli", "2.0.0", "linux-x64", "delivery.nextTurn", true),
            ]
        );
    }

    #[test]
    fn a_compiled_table_equals_the_one_derived_from_the_same_rows() {
        static ENTRIES: &[EvidenceEntry] = &[
            EvidenceEntry::compiled(
                "a-cli",
                "1.0.0",
                "linux-x64",
                "guards.beforeShell",
                EvidenceResult::Pass,
            ),
            EvidenceEntry::compiled(
                "b-cli",
                "1.0.0",
                "linux-x64",
                "guards.beforeShell",
                EvidenceResult::Pass,
            ),
            EvidenceEntry::compiled(
                "a-cli",
                "2.0.0",
                "darwin-arm64",
                "guards.beforeShell",
                EvidenceResult::Fail,
            ),
            EvidenceEntry::compiled(
                "a-cli",
                "2.0.0",
                "linux-x64",
                "delivery.nextTurn",
                EvidenceResult::Pass,
            ),
        ];
        assert_eq!(EvidenceTable::compiled(ENTRIES), certification().table());
        assert_ne!(
            EvidenceTable::compiled(&ENTRIES[1..]),
            certification().table()
        );
    }

    #[test]
    fn both_sources_give_one_clients_rows_of_one_capability() {
        let cert = certification();
        let table = cert.table();
        for client in ["a-cli", "b-cli", "c-cli"] {
            for cap in [
                "guards.beforeShell",
                "delivery.nextTurn",
                "guards.beforeWrite",
            ] {
                let full: Vec<RowFacts> = cert.rows_of(client, cap).collect();
                let compact: Vec<RowFacts> = table.rows_of(client, cap).collect();
                assert_eq!(full, compact, "{client} {cap}");
            }
        }
        let a_shell: Vec<RowFacts> = table.rows_of("a-cli", "guards.beforeShell").collect();
        assert_eq!(
            a_shell,
            [
                RowFacts {
                    version: "1.0.0",
                    platform: "linux-x64",
                    passed: true
                },
                RowFacts {
                    version: "2.0.0",
                    platform: "darwin-arm64",
                    passed: false
                },
            ]
        );
    }
}
