//! `junit.xml`: one test case per check and adapter, grouped into one suite per adapter
//! (plus `repository` for repository-wide checks). Every test case and suite carries its
//! measured `time` in seconds, which CI tools chart; everything else is as deterministic as
//! `report.json`. An implied failure's message names its root cause first.

use super::results::{GateReport, GateResult, Status};

/// The suite of repository-wide checks.
pub const REPOSITORY_SUITE: &str = "repository";

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 cannot carry other control characters at all.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t' | '\r') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

fn testcase(r: &GateResult, suite: &str) -> String {
    let open = format!(
        "    <testcase classname=\"acc-certify.{}\" name=\"{}\" time=\"{}\"",
        escape(suite),
        escape(&r.check),
        seconds(r.elapsed)
    );
    let message = match (&r.implied, r.is_implied()) {
        (Some(implied), true) => escape(&format!(
            "{}; {}",
            implied.describe(),
            r.message.as_deref().unwrap_or("")
        )),
        _ => escape(r.message.as_deref().unwrap_or("")),
    };
    let file = r
        .file
        .as_deref()
        .map_or_else(String::new, |f| format!(" file=\"{}\"", escape(f)));
    match r.status {
        Status::Pass => format!("{open}{file}/>\n"),
        Status::Fail | Status::StaleBaseline => format!(
            "{open}{file}>\n      <failure type=\"{}\" message=\"{message}\">{message}</failure>\n    </testcase>\n",
            r.status.as_str()
        ),
        Status::NotApplicable | Status::ExpectedFailure => format!(
            "{open}{file}>\n      <skipped message=\"{}: {message}\"/>\n    </testcase>\n",
            r.status.as_str()
        ),
    }
}

/// Seconds with millisecond precision, as JUnit readers expect.
fn seconds(d: std::time::Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

pub fn render(report: &GateReport) -> String {
    let mut suites: Vec<String> = vec![REPOSITORY_SUITE.to_owned()];
    suites.extend(report.adapters.iter().cloned());
    let failures = |rs: &[&GateResult]| rs.iter().filter(|r| r.status.fails_gate()).count();
    let skipped = |rs: &[&GateResult]| {
        rs.iter()
            .filter(|r| matches!(r.status, Status::NotApplicable | Status::ExpectedFailure))
            .count()
    };
    let all: Vec<&GateResult> = report.results.iter().collect();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"acc-certify gate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">\n",
        all.len(),
        failures(&all),
        skipped(&all),
        seconds(all.iter().map(|r| r.elapsed).sum())
    ));
    for suite in suites {
        let members: Vec<&GateResult> = report
            .results
            .iter()
            .filter(|r| r.adapter.as_deref().unwrap_or(REPOSITORY_SUITE) == suite)
            .collect();
        if members.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{}\">\n",
            escape(&suite),
            members.len(),
            failures(&members),
            skipped(&members),
            seconds(members.iter().map(|r| r.elapsed).sum())
        ));
        for r in &members {
            out.push_str(&testcase(r, &suite));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_xml_cannot_hold() {
        assert_eq!(
            escape("a<b & \"c\"\u{1b}"),
            "a&lt;b &amp; &quot;c&quot;\\u001b"
        );
    }
}
