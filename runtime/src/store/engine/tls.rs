//! TLS to a shared store's server, as the store URL asks for it with libpq's parameters:
//! `sslmode=disable|prefer|require|verify-ca|verify-full` and `sslrootcert=<PEM file>`.
//!
//! The client (`postgres`) parses only `disable`, `prefer` and `require`, and no
//! `sslrootcert`; both are taken out of the URL here and honoured with rustls
//! (`tokio-postgres-rustls`, with the `ring` provider: no system library, no C toolchain
//! beyond the one the build has). As libpq does: without `sslmode` the connection is
//! plain; `prefer` and `require` encrypt without checking who answers; `verify-ca` checks
//! that a CA in `sslrootcert` signed the server's certificate; `verify-full` checks that and
//! that the certificate names the host the URL names. A `verify-*` mode without a CA file
//! is refused before connecting, naming the parameter to add.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::path::PathBuf;
use std::sync::Arc;

/// What the URL asks of the connection's encryption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// A store URL split into what `postgres` parses and what this module honours.
#[derive(Debug, Clone)]
pub struct StoreUrl {
    pub config: postgres::Config,
    pub mode: SslMode,
    pub root_cert: Option<PathBuf>,
}

/// `url` with `sslmode` and `sslrootcert` taken out and read.
pub fn parse(url: &str) -> Result<StoreUrl, String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut mode = SslMode::Disable;
    let mut root_cert = None;
    let mut kept: Vec<&str> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "sslmode" => {
                mode = match decode(value).as_str() {
                    "disable" => SslMode::Disable,
                    "prefer" | "allow" => SslMode::Prefer,
                    "require" => SslMode::Require,
                    "verify-ca" => SslMode::VerifyCa,
                    "verify-full" => SslMode::VerifyFull,
                    other => {
                        return Err(format!(
                            "sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full"
                        ));
                    }
                }
            }
            "sslrootcert" => root_cert = Some(PathBuf::from(decode(value))),
            _ => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    let mut config: postgres::Config = rest.parse().map_err(|e| format!("{e}"))?;
    config.ssl_mode(match mode {
        SslMode::Disable => postgres::config::SslMode::Disable,
        SslMode::Prefer => postgres::config::SslMode::Prefer,
        _ => postgres::config::SslMode::Require,
    });
    Ok(StoreUrl {
        config,
        mode,
        root_cert,
    })
}

/// `%XX` escapes decoded (a CA file's path may hold any byte).
fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The rustls connector for `url`'s mode; `None` for a plain connection.
pub fn connector(
    url: &StoreUrl,
) -> Result<Option<tokio_postgres_rustls::MakeRustlsConnect>, String> {
    // ring, not aws-lc-rs (whose build needs more than the toolchain CI has); rustls
    // deprecates its provider for lacking post-quantum key exchange, which a coordination
    // store's short-lived rows do not call for.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS cannot be set up: {e}"))?;
    let verifier: Arc<dyn ServerCertVerifier> = match url.mode {
        SslMode::Disable => return Ok(None),
        SslMode::Prefer | SslMode::Require => Arc::new(Unchecked(provider)),
        SslMode::VerifyCa | SslMode::VerifyFull => {
            let Some(path) = &url.root_cert else {
                return Err(
                    "sslmode=verify-ca and verify-full need the CA that signed the server's certificate: add sslrootcert=/path/to/ca.pem to the store url".into(),
                );
            };
            let roots = roots_from(path)?;
            let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .map_err(|e| format!("sslrootcert={}: {e}", path.display()))?;
            Arc::new(Verified {
                inner: webpki,
                check_name: url.mode == SslMode::VerifyFull,
            })
        }
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(tokio_postgres_rustls::MakeRustlsConnect::new(config)))
}

fn roots_from(path: &std::path::Path) -> Result<rustls::RootCertStore, String> {
    use rustls::pki_types::pem::PemObject;
    let named = |e: &dyn std::fmt::Display| {
        format!(
            "sslrootcert={}: {e}; point it at the PEM file of the CA that signed the server's certificate",
            path.display()
        )
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| named(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| named(&e))?;
    let mut roots = rustls::RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(named(&"holds no certificate"));
    }
    Ok(roots)
}

/// What a failed handshake means for the user, with the fix; `None` when the failure was
/// not the server's certificate.
pub fn certificate_fault(cause: &str, url: &StoreUrl) -> Option<String> {
    if !cause.contains("invalid peer certificate") {
        return None;
    }
    let ca = url
        .root_cert
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    Some(
        if cause.contains("NotValidForName") || cause.contains("not valid for name") {
            format!(
                "the server's certificate does not name the host the store url names ({cause}); use the host name the certificate was issued for in the url, or sslmode=verify-ca to check the CA alone"
            )
        } else {
            format!(
                "the server's certificate is not signed by the CA in sslrootcert={ca} ({cause}); point sslrootcert at the CA that signed the server's certificate"
            )
        },
    )
}

/// `prefer` and `require`: encryption against a passive listener, no check of who answers
/// (libpq's meaning; `verify-full` is the mode that checks).
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca` and `verify-full`: the chain to a CA of `sslrootcert`, and for `verify-full`
/// the host name too.
#[derive(Debug)]
struct Verified {
    inner: Arc<rustls::client::WebPkiServerVerifier>,
    check_name: bool,
}

impl ServerCertVerifier for Verified {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) if !self.check_name => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_libpq_parameters_are_read_and_taken_out() {
        let u = parse("postgres://acc@db:5433/rooms?sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20x.pem&application_name=x").unwrap();
        assert_eq!(u.mode, SslMode::VerifyFull);
        assert_eq!(u.root_cert, Some(PathBuf::from("/etc/ca x.pem")));
        assert_eq!(u.config.get_application_name(), Some("x"));
        assert_eq!(u.config.get_ssl_mode(), postgres::config::SslMode::Require);
        let plain = parse("postgres://acc@db/rooms").unwrap();
        assert_eq!(plain.mode, SslMode::Disable);
        assert!(connector(&plain).unwrap().is_none());
        let err = parse("postgres://acc@db/rooms?sslmode=sometimes").unwrap_err();
        assert!(err.contains("sslmode=sometimes"), "{err}");
    }

    #[test]
    fn verifying_without_a_ca_names_the_parameter_to_add() {
        let u = parse("postgres://acc@db/rooms?sslmode=verify-full").unwrap();
        let err = connector(&u).err().unwrap();
        assert!(err.contains("add sslrootcert="), "{err}");
        let missing =
            parse("postgres://acc@db/rooms?sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem")
                .unwrap();
        let err = connector(&missing).err().unwrap();
        assert!(err.contains("sslrootcert=/nonexistent/ca.pem"), "{err}");
    }
}
