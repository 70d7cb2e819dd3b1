//! Live delivery (tier 3): after a message is durably committed, offer it to the
//! recipient's running session through the adapter's native surface, where the recipient
//! consented, the client is eligible and the session bound itself.
//!
//! - [`policy`]: the consent recorded by `acc install --delivery`.
//! - [`contract`]: which native contract judges a client (the declared one, or a recorder's
//!   candidate) and the eligibility `acc doctor` shows.
//! - [`bind`]: what a session's own hooks publish after the adapter's handshake.
//! - [`router`]: the sender's offer and its truthful outcome.
//!
//! Nothing here knows a vendor: adapters answer through closed facts.

pub mod bind;
pub mod contract;
pub mod policy;
pub mod router;
