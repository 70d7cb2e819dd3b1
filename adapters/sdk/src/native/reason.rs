//! The reason codes of native delivery refusals.

use serde::{Serialize, Serializer};

macro_rules! reason_codes {
    ($($(#[$meta:meta])* $variant:ident => $code:literal,)*) => {
        /// Why live delivery was refused. The texts are stable: install records and senders
        /// keep them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ReasonCode {
            $($(#[$meta])* $variant,)*
        }

        impl ReasonCode {
            pub const ALL: &'static [ReasonCode] = &[$(ReasonCode::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(ReasonCode::$variant => $code,)*
                }
            }
        }
    };
}

reason_codes! {
    NativeDeliveryUnsupported => "native_delivery_unsupported",
    /// Kept so old records still read; nothing produces it.
    PlatformNotCaptured => "platform_not_captured",
    VersionUnavailable => "version_unavailable",
    /// Kept so old records still read; nothing produces it.
    PrereleaseNotCaptured => "prerelease_not_captured",
    BelowMinimumVersion => "below_minimum_version",
    KnownBadVersion => "known_bad_version",
    FeatureProbeFailed => "feature_probe_failed",
    ProbeTimeout => "probe_timeout",
    ProbeVersionMismatch => "probe_version_mismatch",
    ProtocolMismatch => "protocol_mismatch",
    NativeEndpointUnavailable => "native_endpoint_unavailable",
    NativeSessionUnavailable => "native_session_unavailable",
    HandshakeFailed => "handshake_failed",
    HandshakeTimeout => "handshake_timeout",
    HandshakeVersionMismatch => "handshake_version_mismatch",
    SessionGenerationStale => "session_generation_stale",
    ClientProcessUnknown => "client_process_unknown",
    UnsupportedShell => "unsupported_shell",
    WorkspaceIdentityUnavailable => "workspace_identity_unavailable",
    ClientSessionEmbedded => "client_session_embedded",
}

impl ReasonCode {
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.as_str() == text)
    }
}

impl std::fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ReasonCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}
