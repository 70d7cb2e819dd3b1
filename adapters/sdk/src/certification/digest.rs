//! The digest rule: SHA-256 over the bytes exactly as stored, lowercase hex. No canonical
//! JSON and no line-ending normalisation, so a fixture re-saved by an editor stops matching.

use sha2::{Digest, Sha256};

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_raw_bytes_in_lowercase_hex() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // The same JSON with another line ending is other bytes, so another digest.
        assert_ne!(sha256_hex(b"{}\n"), sha256_hex(b"{}\r\n"));
    }
}
