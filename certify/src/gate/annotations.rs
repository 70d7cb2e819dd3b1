//! GitHub workflow annotations: `::error file=...,title=<check id>::<message>` for every
//! result that fails the gate, printed when `GITHUB_ACTIONS=true` so a failing check shows
//! on the file in the pull request.

use super::results::GateReport;

/// Data is escaped for `%`, CR and LF.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Properties additionally for `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(report: &GateReport) -> String {
    let mut out = String::new();
    for r in report.results.iter().filter(|r| r.status.fails_gate()) {
        let mut props = Vec::new();
        if let Some(file) = &r.file {
            props.push(format!("file={}", escape_property(file)));
        }
        props.push(format!("title={}", escape_property(&r.check)));
        let adapter = r
            .adapter
            .as_deref()
            .map_or_else(String::new, |a| format!("[{a}] "));
        out.push_str(&format!(
            "::error {}::{}\n",
            props.join(","),
            escape_data(&format!("{adapter}{}", r.message.as_deref().unwrap_or("")))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::results::{GateResult, Status};

    #[test]
    fn one_error_per_failure_with_escaped_properties() {
        let report = GateReport::new(
            vec!["codex".into()],
            None,
            vec![
                GateResult {
                    check: "cert.validate".into(),
                    adapter: Some("codex".into()),
                    status: Status::Fail,
                    file: Some("adapters/codex/a,b:c.json".into()),
                    message: Some("50% broken\nsecond line".into()),
                },
                GateResult {
                    check: "cert.wire".into(),
                    adapter: Some("codex".into()),
                    status: Status::Pass,
                    file: None,
                    message: None,
                },
            ],
        );
        assert_eq!(
            render(&report),
            "::error file=adapters/codex/a%2Cb%3Ac.json,title=cert.validate::[codex] 50%25 broken%0Asecond line\n"
        );
    }
}
