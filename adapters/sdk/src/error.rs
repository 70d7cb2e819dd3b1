//! Problems found in an adapter's declaration, each with a stable code.
//!
//! Every refusal of a manifest, certification file, provenance record, native contract or
//! behaviour is a [`Problem`]: the file it is about, the JSON path of the field, the
//! message in the seed's wording, and a [`ProblemCode`] whose text never changes, so tools
//! and tests can match on the code while the message stays free to say more.

use std::fmt;

use serde::Serialize;

macro_rules! problem_codes {
    ($($variant:ident => $code:literal,)*) => {
        /// The stable code of a [`Problem`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ProblemCode {
            $($variant,)*
        }

        impl ProblemCode {
            pub const ALL: &'static [ProblemCode] = &[$(ProblemCode::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(ProblemCode::$variant => $code,)*
                }
            }
        }
    };
}

problem_codes! {
    // Reading files.
    FileMissing => "file_missing",
    FileUnreadable => "file_unreadable",
    InvalidJson => "invalid_json",
    // adapter.json
    ManifestNotObject => "manifest_not_object",
    ManifestUnknownField => "manifest_unknown_field",
    MissingId => "missing_id",
    InvalidId => "invalid_id",
    MissingDisplayName => "missing_display_name",
    MissingClientCommand => "missing_client_command",
    ClientUnknownField => "client_unknown_field",
    InvalidCertificationName => "invalid_certification_name",
    InvalidVersionArgs => "invalid_version_args",
    VariantsNotArray => "variants_not_array",
    VariantNotObject => "variant_not_object",
    VariantUnknownField => "variant_unknown_field",
    VariantCertificationName => "variant_certification_name",
    VariantDisplayName => "variant_display_name",
    VariantRepeats => "variant_repeats",
    CertificationFloorRemoved => "certification_floor_removed",
    CapabilitiesNotObject => "capabilities_not_object",
    CapabilityGroupNotObject => "capability_group_not_object",
    UnknownCapabilityGroup => "unknown_capability_group",
    UnknownCapability => "unknown_capability",
    CapabilityNotBoolean => "capability_not_boolean",
    CapabilityRequiresMethod => "capability_requires_method",
    CapabilityRequiresEvidence => "capability_requires_evidence",
    UnknownCertifiedCapability => "unknown_certified_capability",
    EvidenceClientMismatch => "evidence_client_mismatch",
    NativeRequiresMethod => "native_requires_method",
    // certification.json
    CertificationNotObject => "certification_not_object",
    CertificationUnknownField => "certification_unknown_field",
    EvidenceNotArray => "evidence_not_array",
    EvidenceNotObject => "evidence_not_object",
    EvidenceUnknownField => "evidence_unknown_field",
    EvidenceMissingText => "evidence_missing_text",
    EvidencePathNotLocal => "evidence_path_not_local",
    EvidenceInexactVersion => "evidence_inexact_version",
    EvidenceInexactPlatform => "evidence_inexact_platform",
    EvidenceInexactObservedAt => "evidence_inexact_observed_at",
    EvidenceInvalidResult => "evidence_invalid_result",
    EvidenceInvalidLimitations => "evidence_invalid_limitations",
    DuplicateTuple => "duplicate_tuple",
    // fixtures/certification-provenance.json and the fixtures it hashes.
    ProvenanceNotObject => "provenance_not_object",
    ProvenanceUnknownField => "provenance_unknown_field",
    ProvenanceSchemaVersion => "provenance_schema_version",
    ProvenanceCapturesNotArray => "provenance_captures_not_array",
    RecordNotObject => "record_not_object",
    RecordUnknownField => "record_unknown_field",
    RecordInvalidField => "record_invalid_field",
    RecordDuplicateId => "record_duplicate_id",
    ProvenanceNotSelected => "provenance_not_selected",
    ProvenanceIdentityDiffers => "provenance_identity_differs",
    ClaimMissing => "claim_missing",
    ClaimDiffers => "claim_differs",
    FixtureMissing => "fixture_missing",
    FixtureNotJson => "fixture_not_json",
    FixtureDiffers => "fixture_differs",
    DigestMismatch => "digest_mismatch",
    ProductEvidenceInvalid => "product_evidence_invalid",
    ProductEvidenceDigest => "product_evidence_digest",
    ProductEvidenceNotJson => "product_evidence_not_json",
    UnreferencedFixture => "unreferenced_fixture",
    NativeCaptureInvalid => "native_capture_invalid",
    TransportCaptureCertifies => "transport_capture_certifies",
    // nativeDelivery
    NativeMinimumByPlatform => "native_minimum_by_platform",
    NativeNotObject => "native_not_object",
    NativeUnknownField => "native_unknown_field",
    NativeMissingField => "native_missing_field",
    NativePolicySource => "native_policy_source",
    NativeOfferKind => "native_offer_kind",
    NativeMinimumNotStable => "native_minimum_not_stable",
    NativeAnchorsEmpty => "native_anchors_empty",
    NativeAnchorNotObject => "native_anchor_not_object",
    NativeAnchorPlatform => "native_anchor_platform",
    NativeAnchorUnknownField => "native_anchor_unknown_field",
    NativeAnchorMissingField => "native_anchor_missing_field",
    NativeAnchorVersion => "native_anchor_version",
    NativeAnchorUndeclaredClient => "native_anchor_undeclared_client",
    NativeAnchorBelowMinimum => "native_anchor_below_minimum",
    NativeAnchorProtocol => "native_anchor_protocol",
    NativeAnchorUnevidenced => "native_anchor_unevidenced",
    NativeProtocolTwoOwners => "native_protocol_two_owners",
    NativeMinimumNotAnchor => "native_minimum_not_anchor",
    NativeKnownBadInvalid => "native_known_bad_invalid",
    NativeActivationKinds => "native_activation_kinds",
    // Runtime answers a native adapter returns.
    ProbeMalformed => "probe_malformed",
    HandshakeMalformed => "handshake_malformed",
}

impl fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProblemCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The files an adapter declaration is read from, relative to the adapter's directory.
pub const MANIFEST_FILE: &str = "adapter.json";
pub const CERTIFICATION_FILE: &str = "certification.json";
pub const PROVENANCE_FILE: &str = "fixtures/certification-provenance.json";

/// One thing wrong with an adapter's declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub code: ProblemCode,
    /// The file, relative to the adapter directory (`adapter.json`, `fixtures/x.json`).
    pub file: String,
    /// The JSON path of the field (`evidence[3].version`); empty for the whole file.
    pub field: String,
    pub message: String,
}

impl Problem {
    pub fn new(
        code: ProblemCode,
        file: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            code,
            file: file.into(),
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {} [{}]", self.file, self.message, self.code)
        } else {
            write!(
                f,
                "{}: {}: {} [{}]",
                self.file, self.field, self.message, self.code
            )
        }
    }
}

impl std::error::Error for Problem {}

/// Why [`crate::define::define_adapter`] refused: the first problem in the order the
/// declaration is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefineError(pub Problem);

impl DefineError {
    pub fn code(&self) -> ProblemCode {
        self.0.code
    }

    pub fn message(&self) -> &str {
        &self.0.message
    }

    pub fn problem(&self) -> &Problem {
        &self.0
    }
}

impl fmt::Display for DefineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DefineError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn codes_are_unique_snake_case() {
        let texts: BTreeSet<&str> = ProblemCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(texts.len(), ProblemCode::ALL.len());
        for text in texts {
            assert!(
                text.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{text}"
            );
        }
    }

    #[test]
    fn display_names_file_field_and_code() {
        let p = Problem::new(
            ProblemCode::DuplicateTuple,
            "certification.json",
            "evidence[1]",
            "duplicate",
        );
        assert_eq!(
            p.to_string(),
            "certification.json: evidence[1]: duplicate [duplicate_tuple]"
        );
        let whole = Problem::new(ProblemCode::InvalidJson, "adapter.json", "", "bad");
        assert_eq!(whole.to_string(), "adapter.json: bad [invalid_json]");
    }
}
