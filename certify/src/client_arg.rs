//! `--client VALUE` of `record` and `outdated`: its help and its errors name the clients
//! of the recorder's client list ([`crate::clients::list`]), so a client added there is
//! offered everywhere without a list kept by hand.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, Command};

use crate::clients::Client;

/// A `--client` parser: `parse` reads the value; help lists every client of the recorder's
/// list, then `extra` (such as `all`).
#[derive(Clone, Copy)]
pub struct ClientValues<T> {
    parse: fn(&str) -> Result<T, String>,
    extra: &'static [&'static str],
}

impl<T> ClientValues<T> {
    pub const fn new(parse: fn(&str) -> Result<T, String>, extra: &'static [&'static str]) -> Self {
        ClientValues { parse, extra }
    }
}

/// Every id the help offers: the recorder's clients in its list's order, then `extra`.
pub fn offered(extra: &[&'static str]) -> Vec<&'static str> {
    Client::all()
        .iter()
        .map(|client| client.id())
        .chain(extra.iter().copied())
        .collect()
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for ClientValues<T> {
    type Value = T;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, clap::Error> {
        // clap's own function parser words the error (`invalid value 'x' for '--client'`).
        self.parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            offered(self.extra).into_iter().map(PossibleValue::new),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_offers_every_listed_client_then_the_extras() {
        let parser = ClientValues::new(
            |text| text.parse::<Client>().map_err(|e| e.to_string()),
            &["all"],
        );
        let names: Vec<String> = parser
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_owned())
            .collect();
        let listed: Vec<&str> = crate::clients::list::RECORDER_FILES
            .iter()
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(names[..listed.len()], listed[..]);
        assert_eq!(names[listed.len()..], ["all"]);
        let cmd = Command::new("t");
        let err = parser
            .parse_ref(&cmd, None, OsStr::new("vim"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("vim"), "{err}");
        assert_eq!(
            parser.parse_ref(&cmd, None, OsStr::new("grok")).unwrap(),
            Client::Grok
        );
    }
}
