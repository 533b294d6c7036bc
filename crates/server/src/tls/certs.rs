//! Certificate files: reading PEM, and the set generated in the data directory.
//!
//! With no `ssl_cert`/`ssl_key` configured, the server keeps its own certificates in the data
//! directory, generated on first start (rcgen, ECDSA P-256):
//!
//! | file | what |
//! |---|---|
//! | `ca.pem` | a CA certificate made for this data directory only; its key is discarded once the server certificate is signed, so it can sign nothing else. Clients verify the server with it (`mariadb --ssl-verify-server-cert --ssl-ca=DATADIR/ca.pem`) |
//! | `server-cert.pem` | the server certificate, valid 10 years, for `localhost`, `127.0.0.1`, `::1`, this host's name and the bind address (when it names one) |
//! | `server-key.pem` | its private key |
//!
//! Every file is created `0600` ([`crate::datadir`]). Generation writes each file under a
//! temporary name, fsyncs it, renames `ca.pem`, then `server-key.pem`, then `server-cert.pem`,
//! and fsyncs the directory: `server-cert.pem` exists only once the whole set does, so a start
//! that finds it uses the set, and one that does not generates a new one (over whatever an
//! interrupted generation left). The server logs the certificate's SHA-256 fingerprint at
//! every start, so clients can pin it.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::RootCertStore;
use std::io::Write;
use std::path::{Path, PathBuf};

/// File names of the generated set.
pub const CA_FILE: &str = "ca.pem";
pub const CERT_FILE: &str = "server-cert.pem";
pub const KEY_FILE: &str = "server-key.pem";
/// Validity of a generated certificate.
const VALID_DAYS: i64 = 3650;

/// The generated set's paths.
pub struct Generated {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

/// The data directory's generated set: the existing one, or a new one.
pub fn ensure_generated(datadir: &Path, bind_address: &str) -> Result<Generated, String> {
    let set = Generated {
        ca: datadir.join(CA_FILE),
        cert: datadir.join(CERT_FILE),
        key: datadir.join(KEY_FILE),
    };
    if set.cert.exists() {
        crate::datadir::check_private(&set.key, "TLS private key")?;
        return Ok(set);
    }
    let files = generate(&server_names(bind_address))?;
    write_set(datadir, &set, &files).map_err(|e| {
        format!(
            "cannot write the generated TLS certificate into {}: {e}",
            datadir.display()
        )
    })?;
    tracing::info!(
        "generated a TLS certificate for {} in {} (clients verify it with --ssl-ca={})",
        server_names(bind_address).join(", "),
        set.cert.display(),
        set.ca.display()
    );
    Ok(set)
}

/// The PEM texts of a generated set.
struct Files {
    ca: String,
    cert: String,
    key: String,
}

/// A CA, and a server certificate for `names` signed by it.
fn generate(names: &[String]) -> Result<Files, String> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose,
    };
    let failed = |e: rcgen::Error| format!("cannot generate a TLS certificate: {e}");
    let (not_before, not_after) = validity();
    let mut ca = CertificateParams::default();
    ca.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let id: u64 = rand::random();
    ca.distinguished_name.push(
        DnType::CommonName,
        format!("Cohort auto-generated CA {id:016x}"),
    );
    ca.not_before = not_before;
    ca.not_after = not_after;
    let ca_key = KeyPair::generate().map_err(failed)?;
    let ca_cert = ca.self_signed(&ca_key).map_err(failed)?;
    let issuer = Issuer::new(ca, ca_key);

    let mut server = CertificateParams::new(names.to_vec()).map_err(failed)?;
    server
        .distinguished_name
        .push(DnType::CommonName, "Cohort server");
    server.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    server.use_authority_key_identifier_extension = true;
    server.not_before = not_before;
    server.not_after = not_after;
    let key = KeyPair::generate().map_err(failed)?;
    let cert = server.signed_by(&key, &issuer).map_err(failed)?;
    Ok(Files {
        ca: ca_cert.pem(),
        cert: cert.pem(),
        key: key.serialize_pem(),
    })
}

/// Names the generated certificate is valid for: loopback, this host's name, and the bind
/// address when it is one address (not a wildcard).
fn server_names(bind_address: &str) -> Vec<String> {
    let mut names: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    if let Some(host) = host_name() {
        names.push(host);
    }
    let wildcard = matches!(bind_address, "0.0.0.0" | "::" | "" | "*");
    if !wildcard {
        names.push(bind_address.to_string());
    }
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

fn host_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname(2) writes at most `buf.len()` bytes into the buffer it is given.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name = std::str::from_utf8(&buf[..end]).ok()?;
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    valid.then(|| name.to_string())
}

/// From yesterday (clocks differ) to [`VALID_DAYS`] days from now.
fn validity() -> (time::OffsetDateTime, time::OffsetDateTime) {
    let now = time::OffsetDateTime::now_utc();
    (
        now - time::Duration::days(1),
        now + time::Duration::days(VALID_DAYS),
    )
}

/// Write the set: temp files, fsync, renames with the certificate last, directory fsync.
fn write_set(datadir: &Path, set: &Generated, files: &Files) -> std::io::Result<()> {
    let order = [
        (&set.ca, &files.ca),
        (&set.key, &files.key),
        (&set.cert, &files.cert),
    ];
    let mut temps = Vec::new();
    for (path, text) in order {
        let tmp = path.with_extension("pem.tmp");
        let mut f = crate::datadir::create_file(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        temps.push((tmp, path));
    }
    for (tmp, path) in temps {
        std::fs::rename(tmp, path)?;
    }
    std::fs::File::open(datadir)?.sync_all()
}

/// The certificate chain in a PEM file (server certificate first).
pub fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let chain = CertificateDer::pem_file_iter(path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("ssl_cert {}: {e}", path.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "ssl_cert {}: no certificate in the file",
            path.display()
        ));
    }
    Ok(chain)
}

/// The private key in a PEM file (PKCS#8, PKCS#1 or SEC1).
pub fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, String> {
    PrivateKeyDer::from_pem_file(path).map_err(|e| format!("ssl_key {}: {e}", path.display()))
}

/// The CA certificates in a PEM file, as trust anchors.
pub fn read_roots(path: &Path) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(path)
        .map_err(|e| format!("ssl_ca {}: {e}", path.display()))?
    {
        let cert = cert.map_err(|e| format!("ssl_ca {}: {e}", path.display()))?;
        roots
            .add(cert)
            .map_err(|e| format!("ssl_ca {}: {e}", path.display()))?;
    }
    if roots.is_empty() {
        return Err(format!(
            "ssl_ca {}: no certificate in the file",
            path.display()
        ));
    }
    Ok(roots)
}

/// SHA-256 of a certificate, as `openssl x509 -fingerprint -sha256` prints it.
pub fn fingerprint(cert: &CertificateDer<'_>) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, cert.as_ref());
    digest
        .as_ref()
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}
