use super::*;
use cohort_protocol::PacketReader;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection};
use std::io::{Read, Write};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cohort-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    crate::datadir::create_dir_all(&d).unwrap();
    d
}

fn settings() -> Settings {
    Settings {
        versions: TLS_VERSIONS.into(),
        ..Default::default()
    }
}

/// A rustls client that trusts `ca` (a PEM file), for `name`.
fn client(ca: &Path, name: &str) -> ClientConnection {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(certs::read_roots(ca).unwrap())
        .with_no_client_auth();
    let name = ServerName::try_from(name.to_string()).unwrap();
    ClientConnection::new(Arc::new(config), name).unwrap()
}

/// Move the client's pending records to the server link in pieces of `step` bytes; returns
/// the plaintext the server got. The server's records go back to the client.
fn pump(c: &mut ClientConnection, s: &mut Link, plain: &mut PacketReader, step: usize) {
    for _ in 0..20 {
        let mut wire = Vec::new();
        while c.wants_write() {
            c.write_tls(&mut wire).unwrap();
        }
        let mut back = Vec::new();
        for piece in wire.chunks(step.max(1)) {
            s.open(piece, plain, &mut back).unwrap();
        }
        if back.is_empty() && wire.is_empty() {
            return;
        }
        let mut rd = &back[..];
        while !rd.is_empty() {
            c.read_tls(&mut rd).unwrap();
            c.process_new_packets().unwrap();
        }
    }
}

#[test]
fn a_generated_set_is_private_stable_and_verifies_for_loopback_names() {
    let dir = scratch("gen");
    let tls = Tls::load(&settings(), &dir, "127.0.0.1").unwrap();
    for f in [certs::CA_FILE, certs::CERT_FILE, certs::KEY_FILE] {
        assert_eq!(crate::datadir::mode_of(&dir.join(f)).unwrap(), 0o600, "{f}");
    }
    assert_eq!(
        tls.generated_ca.as_deref(),
        Some(&*dir.join(certs::CA_FILE))
    );
    assert_eq!(tls.fingerprint.len(), 32 * 3 - 1);
    // A restart reuses the set: same certificate, same fingerprint.
    let again = Tls::load(&settings(), &dir, "127.0.0.1").unwrap();
    assert_eq!(again.fingerprint, tls.fingerprint);
    for name in ["localhost", "127.0.0.1"] {
        let mut c = client(&dir.join(certs::CA_FILE), name);
        let mut s = tls.link();
        let mut plain = PacketReader::new(1 << 20);
        pump(&mut c, &mut s, &mut plain, 1 << 20);
        assert!(!c.is_handshaking(), "handshake for {name}");
        let info = s.info().unwrap();
        assert_eq!(info.version, "TLSv1.3");
        assert!(info.cipher.starts_with("TLS_"), "{info:?}");
        assert!(!info.client_verified);
    }
    // Another name is refused by a verifying client.
    let mut c = client(&dir.join(certs::CA_FILE), "db.example.com");
    let mut s = tls.link();
    let mut wire = Vec::new();
    c.write_tls(&mut wire).unwrap();
    let mut back = Vec::new();
    s.open(&wire, &mut PacketReader::new(1024), &mut back)
        .unwrap();
    let mut rd = &back[..];
    c.read_tls(&mut rd).unwrap();
    assert!(c.process_new_packets().is_err(), "wrong name accepted");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interrupted_generation_is_replaced_and_a_lone_cert_or_key_refused() {
    let dir = scratch("partial");
    // A crash after the CA and key were renamed, before the certificate was.
    std::fs::write(dir.join(certs::CA_FILE), "junk").unwrap();
    std::fs::write(dir.join(certs::KEY_FILE), "junk").unwrap();
    std::fs::write(dir.join("server-cert.pem.tmp"), "junk").unwrap();
    let tls = Tls::load(&settings(), &dir, "127.0.0.1").unwrap();
    assert!(std::fs::read_to_string(dir.join(certs::KEY_FILE))
        .unwrap()
        .contains("PRIVATE KEY"));
    assert!(!dir.join("server-cert.pem.tmp").exists());
    // Configured files: both or neither.
    let only_cert = Settings {
        cert: Some(tls.cert_path.clone()),
        ..settings()
    };
    let e = Tls::load(&only_cert, &dir, "127.0.0.1").err().unwrap();
    assert!(e.contains("go together"), "{e}");
    // Configured files are used as they are.
    let configured = Settings {
        cert: Some(tls.cert_path.clone()),
        key: Some(tls.key_path.clone()),
        ..settings()
    };
    let other = scratch("partial-other");
    let t2 = Tls::load(&configured, &other, "127.0.0.1").unwrap();
    assert_eq!(t2.fingerprint, tls.fingerprint);
    assert!(t2.generated_ca.is_none());
    assert!(!other.join(certs::CERT_FILE).exists(), "nothing generated");
    // A key that does not match the certificate, a missing file: refused with the reason.
    let mismatched = Settings {
        cert: Some(tls.cert_path.clone()),
        key: Some(scratch("k").join("none.pem")),
        ..settings()
    };
    assert!(Tls::load(&mismatched, &other, "127.0.0.1").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}

#[test]
fn tls_version_names_what_rustls_implements() {
    assert_eq!(parse_versions("TLSv1.2,TLSv1.3").unwrap().len(), 2);
    assert_eq!(
        parse_versions("tlsv1.3").unwrap(),
        [&rustls::version::TLS13]
    );
    assert!(parse_versions("TLSv1.1")
        .unwrap_err()
        .contains("not supported"));
    assert!(parse_versions("SSLv3").unwrap_err().contains("unknown"));
    assert!(parse_versions("").is_err());
    let dir = scratch("v12");
    let only12 = Settings {
        versions: "TLSv1.2".into(),
        ..settings()
    };
    let tls = Tls::load(&only12, &dir, "127.0.0.1").unwrap();
    let mut c = client(&dir.join(certs::CA_FILE), "localhost");
    let mut s = tls.link();
    pump(&mut c, &mut s, &mut PacketReader::new(1024), 1 << 20);
    let info = s.info().unwrap();
    assert_eq!(info.version, "TLSv1.2");
    assert_eq!(info.cipher, "ECDHE-ECDSA-AES256-GCM-SHA384");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Records split at every byte, application data both ways, close_notify.
#[test]
fn records_in_any_split_round_trip() {
    let dir = scratch("split");
    let tls = Tls::load(&settings(), &dir, "127.0.0.1").unwrap();
    let mut c = client(&dir.join(certs::CA_FILE), "localhost");
    let mut s = tls.link();
    let mut plain = PacketReader::new(1 << 20);
    pump(&mut c, &mut s, &mut plain, 1);
    let message: Vec<u8> = (0..40_000u32).map(|i| (i % 251) as u8).collect();
    c.writer().write_all(&message).unwrap();
    pump(&mut c, &mut s, &mut plain, 7);
    assert_eq!(plain.take_buffered(), message);
    let mut out = Vec::new();
    s.seal(&message, &mut out);
    assert!(out.len() > message.len() && out.len() < message.len() + 200);
    let mut rd = &out[..];
    let mut got = Vec::new();
    while !rd.is_empty() {
        c.read_tls(&mut rd).unwrap();
        c.process_new_packets().unwrap();
        let _ = c.reader().read_to_end(&mut got);
    }
    assert_eq!(got, message);
    c.send_close_notify();
    let mut wire = Vec::new();
    c.write_tls(&mut wire).unwrap();
    let opened = s.open(&wire, &mut plain, &mut Vec::new()).unwrap();
    assert!(opened.peer_closed);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn garbage_instead_of_a_client_hello_fails_with_an_alert() {
    let dir = scratch("garbage");
    let tls = Tls::load(&settings(), &dir, "127.0.0.1").unwrap();
    for garbage in [
        &b"\x03SELECT 1 -- not TLS at all, a plain command"[..],
        &[0x16, 0x03, 0x01, 0xff, 0xff, 0, 0, 0][..],
        &[0x17; 64][..],
    ] {
        let mut s = tls.link();
        let mut out = Vec::new();
        let e = s.open(garbage, &mut PacketReader::new(1024), &mut out);
        assert!(e.is_err(), "{garbage:?} accepted");
        assert!(s.info().is_none());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A ClientHello that announces 16 MiB and keeps coming: rustls stops it at its own cap on
/// handshake messages (64 KiB) instead of buffering it.
#[test]
fn an_endless_handshake_message_is_refused_not_buffered() {
    let dir = scratch("endless");
    let tls = Tls::load(&settings(), &dir, "127.0.0.1").unwrap();
    let mut s = tls.link();
    let mut plain = PacketReader::new(1024);
    let mut out = Vec::new();
    let mut sent = 0usize;
    let mut first = true;
    let failed = loop {
        // One handshake record of 16 KiB; the first starts a ClientHello of 0xFFFFFF bytes.
        let mut record = vec![0x16, 0x03, 0x03, 0x40, 0x00];
        let mut body = vec![0u8; 0x4000];
        if first {
            body[..4].copy_from_slice(&[0x01, 0xff, 0xff, 0xff]);
            first = false;
        }
        record.extend_from_slice(&body);
        sent += record.len();
        if s.open(&record, &mut plain, &mut out).is_err() {
            break sent;
        }
        assert!(sent < 1 << 20, "still accepting after {sent} bytes");
    };
    assert!(failed <= 80 << 10, "refused only after {failed} bytes");
    std::fs::remove_dir_all(&dir).unwrap();
}
