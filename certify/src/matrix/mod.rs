//! The certified-support matrix: every shipped adapter against the fourteen capabilities,
//! judged at the newest evidence of that adapter's client, the way `acc-hook` would judge
//! that client. Rendered into `docs/CAPABILITIES.md` by [`render`]; never written by hand.

pub mod command;
pub mod index_lines;
pub mod render;

use std::path::{Path, PathBuf};

use acc_sdk::capabilities::Capability;
use acc_sdk::certification::EvidenceRow;
use acc_sdk::define::AdapterDir;
use acc_sdk::error::Problem;
use acc_sdk::resolution::{ClientFacts, Reason, capability_evidence};
use acc_sdk::version::version_order;

/// Where the matrix lives, relative to the repository root.
pub const CAPABILITIES_DOC: &str = "docs/CAPABILITIES.md";

/// The gate's check id for the document drifting from the evidence.
pub const DRIFT_CHECK: &str = "cert.matrix.drift";

/// One capability of one adapter, at the newest evidence of its client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Declared and granted: the version and platform of the deciding capture.
    Granted { version: String, platform: String },
    /// Not declared; `passed_at` is the version of a passing capture when one exists, so a
    /// missing declaration shows.
    Undeclared { passed_at: Option<String> },
    /// No capture of it.
    Unobserved,
    /// The deciding capture failed.
    RecordedFailure { version: String },
    /// The newest client is older than every capture of it.
    OlderThanEvidence { version: Option<String> },
}

/// The newest evidence of an adapter's client: the version, and the platforms captured at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Newest {
    pub version: String,
    pub platforms: Vec<String>,
}

/// One adapter's column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub id: String,
    pub display_name: String,
    /// The primary client's certification name.
    pub client: String,
    /// Evidence rows of the primary client.
    pub rows: Vec<EvidenceRow>,
    pub newest: Option<Newest>,
    pub cells: Vec<(Capability, Cell)>,
    /// Why the client has no capture, from its COMPATIBILITY.md, when it has none.
    pub note: Option<String>,
    /// The committed guard-opaque captures of this adapter, judged again.
    pub kernel_guard: Vec<KernelGuard>,
    /// What its COMPATIBILITY.md records under [`REWRITE_HEADING`]: whether the client's
    /// pre-tool hook can rewrite a call, and in which permission modes acc uses it.
    pub rewrite_note: Option<String>,
    /// The committed interactive-quit captures of this adapter, judged again.
    pub interactive_quit: Vec<QuitOutcome>,
}

/// Does acc stop showing the session live once the person quits the client's terminal
/// interface? One committed capture of the interactive-quit scenario, judged again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuitOutcome {
    pub version: String,
    pub platform: String,
    pub ended: bool,
    pub reasons: Vec<String>,
}

/// The committed captures of `scenario` under `root/captures/` for adapter `id`, oldest
/// version first.
fn committed_captures(
    root: &Path,
    id: &str,
    scenario: crate::record::scenario::Scenario,
) -> Vec<crate::record::kit::observations::Observations> {
    let Ok(entries) = std::fs::read_dir(root.join("captures")) else {
        return Vec::new();
    };
    let mut out: Vec<_> = entries
        .flatten()
        .filter_map(|e| {
            crate::record::output::bundle::read_observations(&e.path().join(scenario.name())).ok()
        })
        .filter(|obs| obs.adapter == id)
        .collect();
    out.sort_by(|a, b| {
        version_order(&a.version)
            .cmp(&version_order(&b.version))
            .then_with(|| a.platform.cmp(&b.platform))
    });
    out
}

/// The interactive-quit captures of adapter `id`, oldest first.
fn interactive_quit(root: &Path, id: &str) -> Vec<QuitOutcome> {
    committed_captures(root, id, crate::record::scenario::Scenario::InteractiveQuit)
        .into_iter()
        .map(|obs| {
            let verdict = crate::record::scenarios::interactive_quit::judge(&obs);
            QuitOutcome {
                version: obs.version,
                platform: obs.platform,
                ended: verdict.passed,
                reasons: verdict.reasons,
            }
        })
        .collect()
}

/// Does the kernel guard hold for a command no parser can read? One committed capture of
/// the guard-opaque scenario, judged again from its observations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelGuard {
    pub version: String,
    pub platform: String,
    pub held: bool,
    /// The claimed file kept its bytes (also when the command was refused, not confined).
    pub claim_kept: bool,
    /// What became of the readable script's write into the claim.
    pub slip: crate::record::scenarios::guard_opaque::Slip,
    pub reasons: Vec<String>,
}

/// The guard-opaque captures of adapter `id`, oldest version first.
fn kernel_guard(root: &Path, id: &str) -> Vec<KernelGuard> {
    committed_captures(root, id, crate::record::scenario::Scenario::GuardOpaque)
        .into_iter()
        .map(|obs| {
            let verdict = crate::record::scenarios::guard_opaque::judge(&obs);
            let claim_kept = crate::record::scenarios::guard_opaque::claim_kept(&obs);
            let slip = crate::record::scenarios::guard_opaque::slip(&obs);
            KernelGuard {
                version: obs.version,
                platform: obs.platform,
                held: verdict.passed,
                claim_kept,
                slip,
                reasons: verdict.reasons,
            }
        })
        .collect()
}

/// Every adapter's column, in registry order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    pub columns: Vec<Column>,
}

/// Why the matrix could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixError {
    pub dir: PathBuf,
    pub problems: Vec<Problem>,
}

impl std::fmt::Display for MatrixError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines: Vec<String> = self
            .problems
            .iter()
            .map(|p| format!("{}: {}", p.file, p.message))
            .collect();
        write!(
            f,
            "{} does not load, so its evidence cannot be tabulated: {}; run acc-certify validate",
            self.dir.display(),
            lines.join("; ")
        )
    }
}

fn newest(rows: &[EvidenceRow]) -> Option<Newest> {
    let top = rows
        .iter()
        .filter_map(|r| version_order(&r.version))
        .max()?;
    let at_top: Vec<&EvidenceRow> = rows
        .iter()
        .filter(|r| version_order(&r.version) == Some(top))
        .collect();
    let version = at_top.iter().map(|r| r.version.clone()).min()?;
    let mut platforms: Vec<String> = at_top.iter().map(|r| r.platform.clone()).collect();
    platforms.sort();
    platforms.dedup();
    Some(Newest { version, platforms })
}

/// The platform of the capture that decided `cap` at `version`, preferring `preferred`.
fn deciding_platform(
    rows: &[EvidenceRow],
    cap: Capability,
    version: &str,
    preferred: &str,
) -> String {
    let mut at: Vec<&str> = rows
        .iter()
        .filter(|r| {
            r.capability == cap.key() && version_order(&r.version) == version_order(version)
        })
        .map(|r| r.platform.as_str())
        .collect();
    at.sort();
    if at.contains(&preferred) {
        preferred.to_owned()
    } else {
        at.first()
            .map_or_else(|| preferred.to_owned(), |p| (*p).to_owned())
    }
}

/// The section of an adapter's `COMPATIBILITY.md` whose first paragraph the kernel-guard
/// section of the matrix shows under the client's captures.
pub const REWRITE_HEADING: &str = "Can a hook rewrite a call?";

/// The first paragraph of the `## {heading}` section of `text` (lines joined by spaces).
pub fn section_paragraph(text: &str, heading: &str) -> Option<String> {
    let body = text
        .lines()
        .skip_while(|line| line.strip_prefix("## ").map(str::trim) != Some(heading))
        .skip(1)
        .take_while(|line| !line.starts_with("## "));
    let paragraph: Vec<&str> = body
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    (!paragraph.is_empty()).then(|| paragraph.join(" "))
}

/// The paragraph of `COMPATIBILITY.md` that says why a client has no capture: the first
/// section whose heading says it could not be had (or why everything is false), else the
/// capabilities section.
pub fn compatibility_note(text: &str) -> Option<String> {
    let sections: Vec<(String, Vec<&str>)> = {
        let mut out: Vec<(String, Vec<&str>)> = Vec::new();
        for line in text.lines() {
            if let Some(heading) = line.strip_prefix("## ") {
                out.push((heading.to_ascii_lowercase(), Vec::new()));
            } else if let Some((_, body)) = out.last_mut() {
                body.push(line);
            }
        }
        out
    };
    let pick = |words: &[&str]| {
        sections
            .iter()
            .find(|(heading, _)| words.iter().any(|w| heading.contains(w)))
    };
    let (_, body) = pick(&["could not", "cannot", "unobtainable", "why"])
        .or_else(|| pick(&["capabilities"]))?;
    let paragraph: Vec<&str> = body
        .iter()
        .map(|l| l.trim())
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    (!paragraph.is_empty()).then(|| paragraph.join(" "))
}

fn column(root: &Path, id: &str) -> Result<Column, MatrixError> {
    let dir = root.join("adapters").join(id);
    let loaded = AdapterDir::load(&dir).map_err(|problems| MatrixError {
        dir: dir.clone(),
        problems,
    })?;
    let declaration = &loaded.declaration;
    let client = declaration.primary().to_owned();
    let rows: Vec<EvidenceRow> = declaration
        .certification()
        .evidence
        .iter()
        .filter(|r| r.client == client)
        .cloned()
        .collect();
    let newest = newest(&rows);
    let facts = ClientFacts {
        client_version: newest.as_ref().map(|n| n.version.clone()),
        platform: newest
            .as_ref()
            .and_then(|n| n.platforms.first().cloned())
            .unwrap_or_default(),
        client_name: None,
    };
    // The evidence alone decides why a capability is off; the declaration only decides
    // whether a passing capture is switched on.
    let mut everything = declaration.manifest().clone();
    for cap in Capability::ALL {
        everything.capabilities.set(cap, true);
    }
    let certification = declaration.certification();
    let cells = Capability::ALL
        .into_iter()
        .map(|cap| {
            let verdict = capability_evidence(&everything, certification, &facts, cap);
            let declared = declaration.manifest().capabilities.get(cap);
            let cell = match (verdict.granted, verdict.reason, verdict.version) {
                (true, _, Some(version)) if declared => Cell::Granted {
                    platform: deciding_platform(&rows, cap, &version, &facts.platform),
                    version,
                },
                (true, _, version) => Cell::Undeclared { passed_at: version },
                (false, Some(Reason::RecordedFailure), Some(version)) => {
                    Cell::RecordedFailure { version }
                }
                (false, Some(Reason::OlderThanEvidence), version) => {
                    Cell::OlderThanEvidence { version }
                }
                _ => Cell::Unobserved,
            };
            (cap, cell)
        })
        .collect();
    let compatibility = std::fs::read_to_string(dir.join("COMPATIBILITY.md")).ok();
    let note = if rows.is_empty() {
        compatibility.as_deref().and_then(compatibility_note)
    } else {
        None
    };
    let rewrite_note = compatibility
        .as_deref()
        .and_then(|t| section_paragraph(t, REWRITE_HEADING));
    Ok(Column {
        id: id.to_owned(),
        display_name: declaration.manifest().display_name.clone(),
        client,
        rows,
        newest,
        cells,
        note,
        kernel_guard: kernel_guard(root, id),
        rewrite_note,
        interactive_quit: interactive_quit(root, id),
    })
}

/// The matrix of `ids` (the shipped adapters), read from `root/adapters/<id>/`.
pub fn compute(root: &Path, ids: &[String]) -> Result<Matrix, MatrixError> {
    let columns = ids
        .iter()
        .map(|id| column(root, id))
        .collect::<Result<_, _>>()?;
    Ok(Matrix { columns })
}

/// The shipped adapters' ids, in registry order.
pub fn shipped_ids() -> Vec<String> {
    acc_runtime::registry::all()
        .iter()
        .map(|a| a.id().to_owned())
        .collect()
}

/// What `--check` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    None,
    Missing,
    /// The first line (1-based) where the file differs, with both versions of it.
    Differs {
        line: usize,
        expected: String,
        found: String,
    },
}

/// Compares the committed document with what the evidence renders to.
pub fn drift(committed: Option<&str>, rendered: &str) -> Drift {
    let Some(committed) = committed else {
        return Drift::Missing;
    };
    if committed == rendered {
        return Drift::None;
    }
    let mut expected = rendered.lines();
    let mut found = committed.lines();
    let mut line = 1;
    loop {
        match (expected.next(), found.next()) {
            (Some(e), Some(f)) if e == f => line += 1,
            (None, None) => {
                return Drift::Differs {
                    line,
                    expected: "(the same lines)".to_owned(),
                    found: "(other line endings or final newline)".to_owned(),
                };
            }
            (e, f) => {
                return Drift::Differs {
                    line,
                    expected: e.unwrap_or("(end of file)").to_owned(),
                    found: f.unwrap_or("(end of file)").to_owned(),
                };
            }
        }
    }
}

impl Drift {
    /// The message naming the file and the fix; `None` when there is no drift.
    pub fn message(&self) -> Option<String> {
        match self {
            Drift::None => None,
            Drift::Missing => Some(format!(
                "{CAPABILITIES_DOC} is missing; generate it with acc-certify matrix"
            )),
            Drift::Differs {
                line,
                expected,
                found,
            } => Some(format!(
                "{CAPABILITIES_DOC} differs from the evidence at line {line}: expected {expected:?}, found {found:?}; regenerate it with acc-certify matrix (never edit it by hand)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_comes_from_the_section_that_says_why() {
        let text = "# X\n\n## Could not be installed here\n\nNot on any\nregistry.\n\nMore.\n\n## Capabilities\n\nAll false.\n";
        assert_eq!(
            compatibility_note(text).as_deref(),
            Some("Not on any registry.")
        );
        let text = "# X\n\n## Capabilities\n\nEvery capability is **false**.\n\n## Events\n";
        assert_eq!(
            compatibility_note(text).as_deref(),
            Some("Every capability is **false**.")
        );
        assert_eq!(compatibility_note("# X\n\n## Events\n\nA.\n"), None);
    }

    #[test]
    fn the_rewrite_note_is_the_first_paragraph_of_its_own_section() {
        let text = "# X\n\n## Guard limits\n\nA.\n\n## Can a hook rewrite a call?\n\nYes, with\n`allow`.\n\nDetails.\n\n## Not observed\n\nB.\n";
        assert_eq!(
            section_paragraph(text, REWRITE_HEADING).as_deref(),
            Some("Yes, with `allow`.")
        );
        assert_eq!(
            section_paragraph("# X\n\n## Guard limits\n\nA.\n", REWRITE_HEADING),
            None
        );
        assert_eq!(
            section_paragraph(
                "## Can a hook rewrite a call?\n\n## Next\n\nB.\n",
                REWRITE_HEADING
            ),
            None
        );
    }

    #[test]
    fn drift_names_the_first_differing_line() {
        assert_eq!(drift(Some("a\nb\n"), "a\nb\n"), Drift::None);
        assert_eq!(drift(None, "a\n"), Drift::Missing);
        assert_eq!(
            drift(Some("a\nc\n"), "a\nb\n"),
            Drift::Differs {
                line: 2,
                expected: "b".into(),
                found: "c".into()
            }
        );
        assert_eq!(
            drift(Some("a\n"), "a\nb\n"),
            Drift::Differs {
                line: 2,
                expected: "b".into(),
                found: "(end of file)".into()
            }
        );
        assert!(
            drift(Some("x"), "y")
                .message()
                .unwrap()
                .contains("docs/CAPABILITIES.md differs from the evidence at line 1")
        );
    }
}
