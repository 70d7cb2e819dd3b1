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
    // An implied failure would annotate the same fault twice: its root names it instead.
    for r in report
        .results
        .iter()
        .filter(|r| r.status.fails_gate() && !r.is_implied())
    {
        let mut props = Vec::new();
        if let Some(file) = &r.file {
            props.push(format!("file={}", escape_property(file)));
        }
        props.push(format!("title={}", escape_property(&r.check)));
        let adapter = r
            .adapter
            .as_deref()
            .map_or_else(String::new, |a| format!("[{a}] "));
        let implied = report.implied_by(r);
        let implies = if implied.is_empty() {
            String::new()
        } else {
            format!(" (implies: {})", implied.join(", "))
        };
        out.push_str(&format!(
            "::error {}::{}\n",
            props.join(","),
            escape_data(&format!(
                "{adapter}{}{implies}",
                r.message.as_deref().unwrap_or("")
            ))
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
                GateResult::new(
                    "cert.validate",
                    Some("codex"),
                    Status::Fail,
                    Some("adapters/codex/a,b:c.json".into()),
                    Some("50% broken\nsecond line".into()),
                ),
                GateResult::new("cert.wire", Some("codex"), Status::Pass, None, None),
            ],
        );
        assert_eq!(
            render(&report),
            "::error file=adapters/codex/a%2Cb%3Ac.json,title=cert.validate::[codex] 50%25 broken%0Asecond line\n"
        );
    }
}
