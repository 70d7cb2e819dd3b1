//! Recognising Antigravity's desktop app among the hook's ancestors.
//!
//! The desktop app (Antigravity 2.0) runs `~/.gemini/config/hooks.json` under its own
//! language server, with no `agy` process, on a version line of its own. No capture of it
//! exists here, so the rule is deliberately narrow: a `language_server*` executable that
//! lives inside an Antigravity install (a path component named `antigravity` or
//! `Antigravity.app`). Other editors ship language servers of the same name; without the
//! install-path check they would be mistaken for this product. The version is not guessed.

use acc_sdk::adapter::{ClientIdentity, ProcessEntry};
use acc_sdk::identity::executable_name;

pub const DESKTOP: &str = "antigravity-desktop";

pub fn identify(entry: &ProcessEntry) -> Option<ClientIdentity> {
    let exe = entry.exe.as_ref().map(|p| p.to_string_lossy().into_owned());
    let path = exe.or_else(|| entry.args.first().cloned())?;
    let is_language_server = executable_name(&path).starts_with("language_server");
    let in_antigravity = path.split(['/', '\\']).any(|part| {
        matches!(
            part.to_lowercase().as_str(),
            "antigravity" | "antigravity.app"
        )
    });
    (is_language_server && in_antigravity).then(|| ClientIdentity {
        certification_name: DESKTOP.to_owned(),
        version: None,
    })
}
