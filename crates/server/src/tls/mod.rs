//! TLS: encrypted connections, through rustls (with the `ring` crypto provider).
//!
//! # The protocol
//!
//! MySQL and MariaDB negotiate TLS inside their own connection phase, not on a port of its own:
//!
//! ```text
//! server                                   client
//!   HandshakeV10 (seq 0, CLIENT_SSL set) ──►
//!                                      ◄── SSLRequest (seq 1): the first 32 bytes of a
//!                                          HandshakeResponse41, CLIENT_SSL set
//!            (no answer: the next byte on the wire is the client's TLS ClientHello)
//!   ◄──────────────── TLS handshake ───────────────►
//!                                      ◄── HandshakeResponse41 (seq 2), now encrypted
//!   OK / AuthSwitchRequest / ERR (seq 3) ──►   … and every later byte, both ways, encrypted
//! ```
//!
//! The server offers `CLIENT_SSL` only when TLS is configured ([`Tls`]). Bytes the client sent
//! after its SSLRequest, in the same read, already belong to TLS: the session hands what its
//! packet reader still holds to the TLS link unparsed
//! ([`cohort_protocol::PacketReader::take_buffered`]).
//!
//! # Where TLS sits: inside the sans-IO session
//!
//! A connection's [`Link`] (a rustls `ServerConnection`, itself sans-IO) lives in the
//! session, between the socket bytes and the packet codec: [`crate::session::Session::on_bytes`]
//! takes ciphertext and appends ciphertext. The schedulers — a thread per connection
//! ([`crate::net`]) and the pool of threads over epoll ([`crate::sched`]) — keep reading and
//! writing raw bytes as before and drive the same code; non-blocking partial reads and writes
//! need nothing new, because a partial TLS record simply stays in the link until the rest
//! comes, and whatever the socket did not take stays in the scheduler's unsent buffer as
//! before. A deferred commit's response (the pool completes it on another worker, later) is
//! sealed when the session releases it ([`crate::session::Session::on_commit_done`]), in the
//! order the session produces its output, so pipelined responses keep their order inside the
//! TLS stream.
//!
//! # Memory
//!
//! Nothing is buffered without bound. [`Link::open`] decrypts at most what it was given (one
//! socket read: plaintext is never larger than its ciphertext) and moves all of it into the
//! session's packet reader, which bounds itself by `max_allowed_packet`; rustls keeps at most
//! one incomplete record (16 KiB and its framing) or one incomplete handshake message (64 KiB,
//! rustls's own cap). [`Link::seal`] encrypts what the session produced — bounded by the
//! session's output batch — and moves the records out at once. A handshake or record error
//! queues rustls's alert, and the session answers it and closes that connection only.
//!
//! # Certificates
//!
//! `ssl_cert` and `ssl_key` name PEM files (a certificate chain, and its private key: PKCS#8,
//! PKCS#1 or SEC1). With neither given, the server uses — and on first start generates — a CA
//! and a server certificate in the data directory ([`certs`]): TLS works out of the box, as in
//! MariaDB 11.4, and clients can verify the server with `--ssl-ca=DATADIR/ca.pem`. `ssl_ca`
//! is MariaDB's: the CAs that client certificates must chain to. Given, clients may present a
//! certificate; one that does not verify fails the handshake, and an account with
//! `REQUIRE X509` logs in only with a verified one. `tls_version` restricts the protocol
//! versions (TLSv1.2, TLSv1.3).

pub mod certs;
mod link;

pub use link::{Link, TlsError, TlsInfo};

use rustls::server::WebPkiClientVerifier;
use rustls::ServerConfig;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What `version_ssl_library` shows.
pub const LIBRARY: &str = "rustls 0.23 (ring 0.17)";
/// The versions `tls_version` may name, and its default.
pub const TLS_VERSIONS: &str = "TLSv1.2,TLSv1.3";

/// The TLS settings of a server start.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `ssl_cert`, `ssl_key`: both or neither (neither: the data directory's generated set).
    pub cert: Option<PathBuf>,
    pub key: Option<PathBuf>,
    /// `ssl_ca`: CAs for client certificates.
    pub ca: Option<PathBuf>,
    /// `tls_version`: e.g. `TLSv1.2,TLSv1.3`.
    pub versions: String,
}

/// TLS as configured: what every connection's [`Link`] starts from.
pub struct Tls {
    config: Arc<ServerConfig>,
    /// The certificate and key files in use (generated ones included), for `SHOW VARIABLES`.
    pub cert_path: PathBuf,
    pub key_path: PathBuf,
    /// `ssl_ca`, when client certificates are verified.
    pub client_ca_path: Option<PathBuf>,
    /// The CA file clients can verify a generated server certificate with.
    pub generated_ca: Option<PathBuf>,
    /// SHA-256 of the server certificate, `AB:CD:…` (as `openssl x509 -fingerprint -sha256`).
    pub fingerprint: String,
}

impl Tls {
    /// Load the certificate (generating the data directory's set when none is configured)
    /// and build the rustls configuration. The error says what to fix.
    pub fn load(settings: &Settings, datadir: &Path, bind_address: &str) -> Result<Tls, String> {
        let versions = parse_versions(&settings.versions)?;
        let (cert_path, key_path, generated_ca) = match (&settings.cert, &settings.key) {
            (Some(c), Some(k)) => (c.clone(), k.clone(), None),
            (None, None) => {
                let set = certs::ensure_generated(datadir, bind_address)?;
                (set.cert, set.key, Some(set.ca))
            }
            _ => {
                return Err(
                    "ssl_cert and ssl_key go together: give both, or neither (then \
                            the server uses a certificate it generates in the data directory)"
                        .into(),
                )
            }
        };
        let chain = certs::read_chain(&cert_path)?;
        let key = certs::read_key(&key_path)?;
        let fingerprint = certs::fingerprint(&chain[0]);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&versions)
            .map_err(|e| format!("tls_version: {e}"))?;
        let builder = match &settings.ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let roots = certs::read_roots(ca)?;
                let verifier = WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .allow_unauthenticated()
                    .build()
                    .map_err(|e| format!("ssl_ca {}: {e}", ca.display()))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder.with_single_cert(chain, key).map_err(|e| {
            format!(
                "ssl_cert {} and ssl_key {}: {e}",
                cert_path.display(),
                key_path.display()
            )
        })?;
        Ok(Tls {
            config: Arc::new(config),
            cert_path,
            key_path,
            client_ca_path: settings.ca.clone(),
            generated_ca,
            fingerprint,
        })
    }

    /// A new connection's TLS state, right after its SSLRequest.
    pub fn link(&self) -> Link {
        Link::new(self.config.clone())
    }
}

/// Server start: TLS from the `ssl_*` and `tls_version` variables (None with `--ssl OFF`),
/// with the variables updated to what is in use (`have_ssl`, the generated files' paths) and
/// `SET GLOBAL require_secure_transport = ON` refused while TLS is off (4167).
pub fn start(
    vars: &crate::vars::SystemVariables,
    datadir: &Path,
    bind_address: &str,
    enabled: bool,
) -> Result<Option<Tls>, String> {
    let offered = enabled;
    vars.veto("require_secure_transport", move |v| {
        if offered || *v != crate::types::Value::str("ON") {
            return Ok(());
        }
        Err(crate::error::Error::new(
            cohort_protocol::ErrorCode::NoSecureTransportsConfigured,
            "No secure transports are configured, unable to set --require_secure_transport=ON",
        ))
    });
    if !enabled {
        return Ok(None);
    }
    let text = |name: &str| {
        vars.global(name)
            .map(|v| crate::vars::display(&v))
            .filter(|t| !t.is_empty())
    };
    let settings = Settings {
        cert: text("ssl_cert").map(PathBuf::from),
        key: text("ssl_key").map(PathBuf::from),
        ca: text("ssl_ca").map(PathBuf::from),
        versions: text("tls_version").unwrap_or_else(|| TLS_VERSIONS.into()),
    };
    let tls = Tls::load(&settings, datadir, bind_address)?;
    let set = |name: &str, value: &str| {
        vars.set_startup(name, crate::types::Value::str(value))
            .map_err(|e| e.message().to_string())
    };
    set("ssl_cert", &tls.cert_path.display().to_string())?;
    set("ssl_key", &tls.key_path.display().to_string())?;
    set("have_ssl", "YES")?;
    set("have_openssl", "YES")?;
    tracing::info!(
        "TLS ({}; {}): certificate {} with SHA-256 fingerprint {}{}{}",
        LIBRARY,
        settings.versions,
        tls.cert_path.display(),
        tls.fingerprint,
        match &tls.generated_ca {
            Some(ca) => format!(
                " (generated; clients verify it with --ssl-ca={})",
                ca.display()
            ),
            None => String::new(),
        },
        match &tls.client_ca_path {
            Some(ca) => format!("; client certificates verified against {}", ca.display()),
            None => String::new(),
        },
    );
    Ok(Some(tls))
}

/// `tls_version`'s list: TLSv1.2 and TLSv1.3 (rustls implements nothing older).
fn parse_versions(text: &str) -> Result<Vec<&'static rustls::SupportedProtocolVersion>, String> {
    let mut out = Vec::new();
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let v = match word.to_ascii_uppercase().as_str() {
            "TLSV1.2" => &rustls::version::TLS12,
            "TLSV1.3" => &rustls::version::TLS13,
            "TLSV1.0" | "TLSV1.1" => {
                return Err(format!(
                    "tls_version: {word} is not supported (it is insecure, and rustls does not \
                     implement it); use TLSv1.2 and/or TLSv1.3"
                ))
            }
            _ => {
                return Err(format!(
                    "tls_version: unknown version '{word}' (expected TLSv1.2 and/or TLSv1.3)"
                ))
            }
        };
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if out.is_empty() {
        return Err("tls_version: no version given (expected TLSv1.2 and/or TLSv1.3)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
