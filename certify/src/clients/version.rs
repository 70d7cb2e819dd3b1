//! Reading the exact version from a client's `--version` output.

/// The first word that is a semantic version, e.g. `2.1.332` in `2.1.332 (Claude Code)`,
/// `0.171.0` in `codex-cli 0.171.0`, `0.2.111` in `grok 0.2.111 (abc123)`, `1.0.102` in
/// `GitHub Copilot CLI 1.0.102.` (a sentence's full stop is not part of the version).
pub fn parse_version_output(output: &str) -> Option<String> {
    output
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .map(|word| word.strip_prefix('v').unwrap_or(word).trim_end_matches('.'))
        .find(|word| semver::Version::parse(word).is_ok())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_format_yields_its_version() {
        assert_eq!(
            parse_version_output("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(
            parse_version_output("codex-cli 0.171.0\n").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(parse_version_output("0.61.0\n").as_deref(), Some("0.61.0"));
        assert_eq!(
            parse_version_output("grok 0.2.111 (3f2a9c1)").as_deref(),
            Some("0.2.111")
        );
        assert_eq!(
            parse_version_output(
                "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n"
            )
            .as_deref(),
            Some("1.0.102")
        );
        assert_eq!(
            parse_version_output("v1.2.3-beta.1").as_deref(),
            Some("1.2.3-beta.1")
        );
    }

    #[test]
    fn text_without_a_version_yields_none() {
        assert_eq!(parse_version_output(""), None);
        assert_eq!(parse_version_output("command not found: 1.2"), None);
    }
}
