//! The recipient's consent to live delivery, read from the installation record at the
//! moment of the offer. Absent, invalid or unreadable means `off`: a published binding never
//! overrides it.

use std::path::Path;

use crate::core::model::{MessageKind, Obligation};
use crate::installer::record;

/// `acc install --delivery`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DeliveryPolicy {
    /// No message wakes a session.
    #[default]
    Off,
    /// Only messages that ask something of the recipient.
    Actionable,
    /// Every addressed message.
    All,
}

impl DeliveryPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryPolicy::Off => "off",
            DeliveryPolicy::Actionable => "actionable",
            DeliveryPolicy::All => "all",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "off" => Some(DeliveryPolicy::Off),
            "actionable" => Some(DeliveryPolicy::Actionable),
            "all" => Some(DeliveryPolicy::All),
            _ => None,
        }
    }

    /// Whether a message of this kind and obligation may be offered live.
    pub fn admits(self, kind: MessageKind, obligation: Obligation) -> bool {
        match self {
            DeliveryPolicy::Off => false,
            DeliveryPolicy::All => true,
            DeliveryPolicy::Actionable => {
                obligation != Obligation::None
                    || matches!(
                        kind,
                        MessageKind::Question | MessageKind::Request | MessageKind::Handoff
                    )
            }
        }
    }

    /// The stable code a sender is told when the policy keeps a message from being offered.
    pub fn refusal_code(self) -> &'static str {
        match self {
            DeliveryPolicy::Off => "delivery_off",
            _ => "not_actionable",
        }
    }
}

/// The policy recorded for `adapter_id` under `acc_data_dir` (`<data home>/acc`).
pub fn recorded(acc_data_dir: &Path, adapter_id: &str) -> DeliveryPolicy {
    record::load(&record::record_path(acc_data_dir))
        .ok()
        .and_then(|r| r.entry(adapter_id).and_then(|e| e.delivery.clone()))
        .and_then(|d| DeliveryPolicy::parse(&d))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actionable_admits_only_what_asks_something() {
        use MessageKind::*;
        let p = DeliveryPolicy::Actionable;
        assert!(p.admits(Question, Obligation::None));
        assert!(p.admits(Request, Obligation::None));
        assert!(p.admits(Handoff, Obligation::None));
        assert!(p.admits(Note, Obligation::Reply));
        assert!(p.admits(Note, Obligation::Acknowledge));
        assert!(!p.admits(Note, Obligation::None));
        assert!(!p.admits(Decision, Obligation::None));
        assert!(DeliveryPolicy::All.admits(Note, Obligation::None));
        assert!(!DeliveryPolicy::Off.admits(Request, Obligation::Reply));
    }

    #[test]
    fn an_absent_invalid_or_unreadable_record_means_off() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(recorded(dir.path(), "x"), DeliveryPolicy::Off);
        let path = record::record_path(dir.path());
        let write = |delivery: &str| {
            std::fs::write(
                &path,
                format!(
                    r#"{{"schemaVersion":1,"installs":[{{"adapterId":"x","accVersion":"0",
                    "artifacts":[],"createdDirectories":[],"originals":[]{delivery}}}]}}"#
                ),
            )
            .unwrap();
        };
        write("");
        assert_eq!(recorded(dir.path(), "x"), DeliveryPolicy::Off);
        write(r#","delivery":"loud""#);
        assert_eq!(recorded(dir.path(), "x"), DeliveryPolicy::Off);
        write(r#","delivery":"all""#);
        assert_eq!(recorded(dir.path(), "x"), DeliveryPolicy::All);
        assert_eq!(recorded(dir.path(), "y"), DeliveryPolicy::Off);
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(recorded(dir.path(), "x"), DeliveryPolicy::Off);
    }
}
