//! Which clients' terminal interfaces the recorder can drive, and how: the `[interactive]`
//! table of the client's recorder file.

use crate::clients::Client;

/// How the recorder drives one client's terminal interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Driver {
    /// What the person types to leave.
    pub quit: &'static str,
    /// Text the interface shows once it takes input.
    pub ready: &'static str,
}

/// The clients whose terminal interface the recorder knows how to drive.
pub fn driver(client: Client) -> Option<Driver> {
    client
        .recorder()
        .interactive
        .as_ref()
        .map(|interactive| Driver {
            quit: &interactive.quit,
            ready: &interactive.ready,
        })
}
