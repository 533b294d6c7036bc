//! One connection's TLS state: ciphertext in, plaintext to the packet reader; plaintext in,
//! ciphertext out. No I/O: the caller passes bytes the scheduler read and appends what this
//! returns to the bytes the scheduler writes.

use cohort_protocol::PacketReader;
use rustls::{CipherSuite, ProtocolVersion, ServerConfig, ServerConnection};
use std::io::{Read, Write};
use std::sync::Arc;

/// A connection inside TLS (from its SSLRequest on).
pub struct Link {
    conn: ServerConnection,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link").field("info", &self.info()).finish()
    }
}

/// Why a link failed: a bad record or handshake (rustls's reason), or bytes after the peer
/// closed TLS. The connection is closed; any alert rustls queued was appended to the output.
#[derive(Debug)]
pub struct TlsError(pub String);

impl std::fmt::Display for TlsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The negotiated protocol, as `Ssl_version` and `Ssl_cipher` show it (OpenSSL's names, as
/// MariaDB shows them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TlsInfo {
    pub version: &'static str,
    pub cipher: &'static str,
    /// The client presented a certificate that verified against `ssl_ca` (REQUIRE X509).
    pub client_verified: bool,
}

/// What [`Link::open`] found besides plaintext.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opened {
    /// The client sent close_notify: nothing more comes.
    pub peer_closed: bool,
}

impl Link {
    pub(super) fn new(config: Arc<ServerConfig>) -> Link {
        let conn = ServerConnection::new(config).expect("a server config with a certificate");
        Link { conn }
    }

    /// Decrypt `ciphertext` (any split: a partial record waits for the rest) into `plain`;
    /// TLS records the server must send (handshake messages, alerts) are appended to `out`.
    pub fn open(
        &mut self,
        mut ciphertext: &[u8],
        plain: &mut PacketReader,
        out: &mut Vec<u8>,
    ) -> Result<Opened, TlsError> {
        let mut opened = Opened::default();
        while !ciphertext.is_empty() {
            // Never with an empty slice: rustls would take that for the end of the stream.
            let n = self
                .conn
                .read_tls(&mut ciphertext)
                .map_err(|e| TlsError(e.to_string()))?;
            let state = match self.conn.process_new_packets() {
                Ok(state) => state,
                Err(e) => {
                    self.flush(out);
                    return Err(TlsError(e.to_string()));
                }
            };
            let mut left = state.plaintext_bytes_to_read();
            while left > 0 {
                let buf = plain.read_buf(left);
                let got = self
                    .conn
                    .reader()
                    .read(buf)
                    .map_err(|e| TlsError(e.to_string()))?;
                plain.advance(got);
                left -= got.min(left);
                if got == 0 {
                    break;
                }
            }
            if state.peer_has_closed() {
                opened.peer_closed = true;
                break;
            }
            if n == 0 {
                break;
            }
        }
        self.flush(out);
        Ok(opened)
    }

    /// Encrypt `plain` and append the records to `out`.
    pub fn seal(&mut self, mut plain: &[u8], out: &mut Vec<u8>) {
        while !plain.is_empty() {
            // The writer takes what fits under rustls's buffer limit; the records it made are
            // moved out at once, so it never holds more than one call's worth.
            let n = self.conn.writer().write(plain).unwrap_or(0);
            self.flush(out);
            if n == 0 {
                // Nothing accepted although nothing is buffered: the connection is closing.
                return;
            }
            plain = &plain[n..];
        }
    }

    /// Append close_notify: the server closes the connection after this output.
    pub fn close(&mut self, out: &mut Vec<u8>) {
        self.conn.send_close_notify();
        self.flush(out);
    }

    /// The negotiated version and cipher, once the handshake is done.
    pub fn info(&self) -> Option<TlsInfo> {
        if self.conn.is_handshaking() {
            return None;
        }
        let version = match self.conn.protocol_version()? {
            ProtocolVersion::TLSv1_3 => "TLSv1.3",
            ProtocolVersion::TLSv1_2 => "TLSv1.2",
            _ => "unknown",
        };
        let cipher = openssl_name(self.conn.negotiated_cipher_suite()?.suite());
        Some(TlsInfo {
            version,
            cipher,
            client_verified: self.conn.peer_certificates().is_some_and(|c| !c.is_empty()),
        })
    }

    /// Move every record rustls has ready to `out`.
    fn flush(&mut self, out: &mut Vec<u8>) {
        while self.conn.wants_write() {
            match self.conn.write_tls(out) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }
}

/// OpenSSL's name of a cipher suite (what MariaDB's `Ssl_cipher` shows).
fn openssl_name(suite: CipherSuite) -> &'static str {
    match suite {
        CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => {
            "ECDHE-ECDSA-CHACHA20-POLY1305"
        }
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        _ => "unknown",
    }
}
