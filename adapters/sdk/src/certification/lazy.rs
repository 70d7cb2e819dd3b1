//! The full certification of a declaration, parsed on first use.
//!
//! Grant resolution needs only the [`super::table`]; the rest of the file (fixtures,
//! provenance, limitations) is read by `acc-certify`, `doctor` and tests, so a hook process
//! never parses it.

use std::sync::OnceLock;

use super::Certification;

#[derive(Debug, Clone)]
pub struct LazyCertification {
    /// The embedded file, when not parsed yet.
    source: Option<&'static str>,
    parsed: OnceLock<Certification>,
}

impl LazyCertification {
    /// A certification already parsed and validated.
    pub fn parsed(certification: Certification) -> Self {
        Self {
            source: None,
            parsed: OnceLock::from(certification),
        }
    }

    /// An embedded file that its crate's build script validated (see [`super::compile`]).
    pub fn embedded(source: &'static str) -> Self {
        Self {
            source: Some(source),
            parsed: OnceLock::new(),
        }
    }

    /// The certification. The embedded file was validated when the binary was built, so a
    /// refusal here means the build script did not run on these bytes: a bug, not input.
    pub fn get(&self) -> &Certification {
        self.parsed.get_or_init(|| {
            let source = self.source.unwrap_or_default();
            Certification::from_bytes(source.as_bytes()).unwrap_or_else(|problems| {
                panic!("an embedded certification.json the build accepted is invalid: {problems:?}")
            })
        })
    }
}

/// Equal when the certifications are, whether or not either was parsed yet.
impl PartialEq for LazyCertification {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Eq for LazyCertification {}
