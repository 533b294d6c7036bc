//! Connection phase: HandshakeV10, HandshakeResponse41, AuthSwitchRequest, and the
//! COM_CHANGE_USER body (which re-runs authentication). Both directions are here: the server
//! encodes [`Handshake`] and parses [`HandshakeResponse`]; the bench client does the reverse.
//!
//! HandshakeV10 (server → client, sequence id 0):
//!
//! ```text
//! 0a                     protocol version 10
//! version 00             server version, NUL-terminated ("5.5.5-10.11.19-MariaDB-cohort-…")
//! u32                    connection id
//! [8]                    scramble, first 8 bytes
//! 00                     filler
//! u16                    capability flags, low 16 bits
//! u8                     default collation (45 = utf8mb4_general_ci)
//! u16                    status flags
//! u16                    capability flags, high 16 bits
//! u8                     auth-plugin-data length: 21 (libmariadb reads exactly this many)
//! [6] 00…                reserved
//! u32                    MariaDB extended capabilities when CLIENT_MYSQL (bit 0) is clear,
//!                        else 4 more reserved zero bytes
//! [12] 00                scramble, last 12 bytes, then NUL
//! plugin 00              "mysql_native_password"
//! ```
//!
//! HandshakeResponse41 (client → server, sequence id 1):
//!
//! ```text
//! u32 caps | u32 max_packet | u8 collation | [19] reserved
//! | u32 MariaDB extended capabilities (read only when caps has CLIENT_MYSQL clear)
//! user 00
//! auth response: lenenc if caps has PLUGIN_AUTH_LENENC_CLIENT_DATA,
//!                else u8 length if SECURE_CONNECTION, else NUL-terminated
//! [db 00]          if caps has CONNECT_WITH_DB
//! [plugin 00]      if caps has PLUGIN_AUTH
//! [attrs]          if caps has CONNECT_ATTRS: lenenc total length, then lenenc key/value pairs
//! ```
//!
//! The optional fields are decided by the *client's* flags and may be absent at the end of
//! the payload. AuthSwitchRequest is `fe plugin 00 data` (for native: 20-byte scramble + 00).
//!
//! SSLRequest (client → server, sequence id 1) is the first 32 bytes of a HandshakeResponse41
//! alone, with `CLIENT_SSL` set — capabilities, max packet size, collation and the reserved
//! bytes — sent only when the greeting offered `CLIENT_SSL`:
//!
//! ```text
//! u32 caps (SSL | PROTOCOL_41 | …) | u32 max_packet | u8 collation | [23] reserved
//! ```
//!
//! The TLS handshake starts on the next byte, without an answer from the server; the client's
//! full HandshakeResponse41 then follows inside TLS with sequence id 2, and the server's
//! answers continue that sequence. This crate only frames the SSLRequest ([`SslRequest`]);
//! the TLS session itself belongs to the server.

use crate::auth::{scramble_native, NATIVE_PASSWORD_PLUGIN};
use crate::codec::{put_lenenc_bytes, put_nul_bytes, put_u16, put_u32, utf8, Reader};
use crate::column::charset;
use crate::error::{ProtocolError, Result};
use crate::flags::{
    capability, status, CLIENT_CAPABILITIES, SERVER_CAPABILITIES, SERVER_MARIADB_CAPABILITIES,
};

/// Bytes in a native-password scramble.
pub const SCRAMBLE_LEN: usize = 20;
const PROTOCOL_VERSION: u8 = 10;
const AUTH_DATA_LEN: u8 = 21;
const RESPONSE_RESERVED: usize = 23;
/// The reserved bytes before the MariaDB extended capabilities (greeting: 10 in all).
const GREETING_RESERVED: usize = 6;
/// In a HandshakeResponse41, the reserved bytes before the MariaDB extended capabilities.
const RESPONSE_RESERVED_BEFORE_EXT: usize = RESPONSE_RESERVED - 4;
/// The header byte of an AuthSwitchRequest.
pub const AUTH_SWITCH_HEADER: u8 = 0xFE;

/// HandshakeV10, the server's greeting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handshake {
    pub server_version: String,
    pub connection_id: u32,
    pub scramble: [u8; SCRAMBLE_LEN],
    pub capabilities: u32,
    /// MariaDB extended capabilities ([`crate::flags::mariadb_capability`]); sent only when
    /// `capabilities` has `CLIENT_MYSQL` (`LONG_PASSWORD`) clear.
    pub mariadb_capabilities: u32,
    /// Default collation id.
    pub charset: u8,
    pub status: u16,
    pub auth_plugin: String,
}

impl Handshake {
    /// Cohort's greeting: [`SERVER_CAPABILITIES`], utf8mb4_general_ci, AUTOCOMMIT,
    /// `mysql_native_password`. Make `scramble` with [`scramble_from_random`].
    pub fn new(server_version: &str, connection_id: u32, scramble: [u8; SCRAMBLE_LEN]) -> Self {
        Handshake {
            server_version: server_version.to_string(),
            connection_id,
            scramble,
            capabilities: SERVER_CAPABILITIES,
            mariadb_capabilities: SERVER_MARIADB_CAPABILITIES,
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            status: status::AUTOCOMMIT,
            auth_plugin: NATIVE_PASSWORD_PLUGIN.to_string(),
        }
    }

    /// Appends the HandshakeV10 payload.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(PROTOCOL_VERSION);
        put_nul_bytes(out, self.server_version.as_bytes());
        put_u32(out, self.connection_id);
        out.extend_from_slice(&self.scramble[..8]);
        out.push(0);
        put_u16(out, self.capabilities as u16);
        out.push(self.charset);
        put_u16(out, self.status);
        put_u16(out, (self.capabilities >> 16) as u16);
        let plugin_auth = self.capabilities & capability::PLUGIN_AUTH != 0;
        out.push(if plugin_auth { AUTH_DATA_LEN } else { 0 });
        out.extend_from_slice(&[0; GREETING_RESERVED]);
        match self.capabilities & capability::LONG_PASSWORD {
            0 => put_u32(out, self.mariadb_capabilities),
            _ => put_u32(out, 0),
        }
        if self.capabilities & capability::SECURE_CONNECTION != 0 {
            out.extend_from_slice(&self.scramble[8..]);
            out.push(0);
        }
        if plugin_auth {
            put_nul_bytes(out, self.auth_plugin.as_bytes());
        }
    }

    /// Parses a HandshakeV10 payload (client side). Requires a 20-byte scramble.
    pub fn parse(payload: &[u8]) -> Result<Handshake> {
        let mut r = Reader::new(payload);
        if r.u8("protocol version")? != PROTOCOL_VERSION {
            return Err(ProtocolError::Malformed {
                what: "protocol version",
            });
        }
        let server_version = utf8(r.nul_bytes("server version")?, "server version")?;
        let connection_id = r.u32("connection id")?;
        let mut scramble = [0u8; SCRAMBLE_LEN];
        scramble[..8].copy_from_slice(r.bytes(8, "scramble")?);
        r.skip(1, "filler")?;
        let caps_low = r.u16("capabilities")?;
        let charset = r.u8("charset")?;
        let status = r.u16("status")?;
        let capabilities = u32::from(caps_low) | u32::from(r.u16("capabilities")?) << 16;
        let auth_data_len = usize::from(r.u8("auth data length")?);
        r.skip(GREETING_RESERVED, "reserved")?;
        let mariadb_capabilities = match capabilities & capability::LONG_PASSWORD {
            0 => r.u32("MariaDB capabilities")?,
            _ => {
                r.skip(4, "reserved")?;
                0
            }
        };
        let part2_len = auth_data_len.saturating_sub(8).max(13);
        let part2 = r.bytes(part2_len.min(r.remaining()), "scramble")?;
        if part2.len() < SCRAMBLE_LEN - 8 {
            return Err(ProtocolError::Truncated { what: "scramble" });
        }
        scramble[8..].copy_from_slice(&part2[..SCRAMBLE_LEN - 8]);
        let auth_plugin = if capabilities & capability::PLUGIN_AUTH != 0 {
            String::from_utf8_lossy(r.nul_bytes_or_rest()).into_owned()
        } else {
            NATIVE_PASSWORD_PLUGIN.to_string()
        };
        Ok(Handshake {
            server_version: server_version.to_string(),
            connection_id,
            scramble,
            capabilities,
            mariadb_capabilities,
            charset,
            status,
            auth_plugin,
        })
    }
}

/// Turns 20 random bytes into a scramble of printable ASCII (0x21..=0x7e), like MySQL's.
/// The caller supplies the randomness (this crate has no RNG).
pub fn scramble_from_random(random: [u8; SCRAMBLE_LEN]) -> [u8; SCRAMBLE_LEN] {
    random.map(|b| 0x21 + b % 94)
}

/// SSLRequest: the client asks to continue the connection phase inside TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SslRequest {
    /// The client's capability flags as sent (`SSL` and `PROTOCOL_41` among them).
    pub capabilities: u32,
    pub max_packet_size: u32,
    /// Collation id the client wants for the connection.
    pub charset: u8,
}

/// Bytes in an SSLRequest payload.
pub const SSL_REQUEST_LEN: usize = 4 + 4 + 1 + RESPONSE_RESERVED;

impl SslRequest {
    /// The SSLRequest in `payload`, if it is one: exactly [`SSL_REQUEST_LEN`] bytes with
    /// `CLIENT_SSL` and `PROTOCOL_41` set. Anything else is not an SSLRequest (a full
    /// HandshakeResponse41 is longer, and is parsed by [`HandshakeResponse::parse`]).
    pub fn parse(payload: &[u8]) -> Option<SslRequest> {
        if payload.len() != SSL_REQUEST_LEN {
            return None;
        }
        let mut r = Reader::new(payload);
        let capabilities = r.u32("capabilities").ok()?;
        let wanted = capability::SSL | capability::PROTOCOL_41;
        if capabilities & wanted != wanted {
            return None;
        }
        Some(SslRequest {
            capabilities,
            max_packet_size: r.u32("max packet size").ok()?,
            charset: r.u8("charset").ok()?,
        })
    }

    /// Appends the SSLRequest payload (client side); `SSL` and `PROTOCOL_41` are always set.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_u32(
            out,
            self.capabilities | capability::SSL | capability::PROTOCOL_41,
        );
        put_u32(out, self.max_packet_size);
        out.push(self.charset);
        out.extend_from_slice(&[0; RESPONSE_RESERVED]);
    }

    /// The SSLRequest that goes before `response` (client side): its first 32 bytes.
    pub fn before(response: &HandshakeResponse) -> SslRequest {
        SslRequest {
            capabilities: response.capabilities | capability::SSL,
            max_packet_size: response.max_packet_size,
            charset: response.charset,
        }
    }
}

/// HandshakeResponse41, the client's answer to the greeting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandshakeResponse {
    /// The client's capability flags as sent (not masked with the server's).
    pub capabilities: u32,
    /// The client's MariaDB extended capabilities as sent (not masked); 0 when the client
    /// set `CLIENT_MYSQL` (its reserved bytes are then filler).
    pub mariadb_capabilities: u32,
    pub max_packet_size: u32,
    /// Collation id the client wants for the connection.
    pub charset: u8,
    pub user: String,
    pub auth_response: Vec<u8>,
    /// Initial database (`CONNECT_WITH_DB`); `None` when absent or empty.
    pub database: Option<String>,
    pub auth_plugin: Option<String>,
    pub connect_attrs: Vec<(String, String)>,
}

impl HandshakeResponse {
    /// Parses a HandshakeResponse41 payload (server side).
    pub fn parse(payload: &[u8]) -> Result<HandshakeResponse> {
        let mut r = Reader::new(payload);
        let capabilities = r.u32("capabilities")?;
        if capabilities & capability::PROTOCOL_41 == 0 {
            return Err(ProtocolError::Malformed {
                what: "handshake response (pre-4.1 protocol)",
            });
        }
        if capabilities & capability::SSL != 0 && payload.len() == 32 {
            return Err(ProtocolError::SslRequested);
        }
        let max_packet_size = r.u32("max packet size")?;
        let charset = r.u8("charset")?;
        r.skip(RESPONSE_RESERVED_BEFORE_EXT, "reserved")?;
        let mariadb_capabilities = match capabilities & capability::LONG_PASSWORD {
            0 => r.u32("MariaDB capabilities")?,
            _ => {
                r.skip(4, "reserved")?;
                0
            }
        };
        let user = utf8(r.nul_bytes("user")?, "user")?.to_string();
        let auth_response = read_auth_response(&mut r, capabilities)?.to_vec();
        let database = read_database(&mut r, capabilities)?;
        let auth_plugin = read_plugin(&mut r, capabilities);
        let connect_attrs = read_connect_attrs(&mut r, capabilities)?;
        Ok(HandshakeResponse {
            capabilities,
            mariadb_capabilities,
            max_packet_size,
            charset,
            user,
            auth_response,
            database,
            auth_plugin,
            connect_attrs,
        })
    }

    /// Appends the HandshakeResponse41 payload (client side).
    pub fn encode(&self, out: &mut Vec<u8>) {
        let caps = self.capabilities;
        put_u32(out, caps);
        put_u32(out, self.max_packet_size);
        out.push(self.charset);
        out.extend_from_slice(&[0; RESPONSE_RESERVED_BEFORE_EXT]);
        match caps & capability::LONG_PASSWORD {
            0 => put_u32(out, self.mariadb_capabilities),
            _ => put_u32(out, 0),
        }
        put_nul_bytes(out, self.user.as_bytes());
        if caps & capability::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
            put_lenenc_bytes(out, &self.auth_response);
        } else if caps & capability::SECURE_CONNECTION != 0 {
            out.push(self.auth_response.len().min(255) as u8);
            out.extend_from_slice(&self.auth_response[..self.auth_response.len().min(255)]);
        } else {
            put_nul_bytes(out, &self.auth_response);
        }
        if caps & capability::CONNECT_WITH_DB != 0 {
            put_nul_bytes(out, self.database.as_deref().unwrap_or("").as_bytes());
        }
        if caps & capability::PLUGIN_AUTH != 0 {
            put_nul_bytes(out, self.auth_plugin.as_deref().unwrap_or("").as_bytes());
        }
        if caps & capability::CONNECT_ATTRS != 0 {
            put_connect_attrs(out, &self.connect_attrs);
        }
    }

    /// A native-password login answering `server` (client side): [`CLIENT_CAPABILITIES`]
    /// (plus `CONNECT_WITH_DB` when `database` is given) masked with the server's flags,
    /// 16 MiB max packet, utf8mb4_general_ci, no connect attributes.
    pub fn native(
        user: &str,
        password: &str,
        database: Option<&str>,
        server: &Handshake,
    ) -> HandshakeResponse {
        let mut wanted = CLIENT_CAPABILITIES;
        if database.is_some() {
            wanted |= capability::CONNECT_WITH_DB;
        }
        let capabilities = (wanted & server.capabilities) | capability::PROTOCOL_41;
        let auth_response = if password.is_empty() {
            Vec::new()
        } else {
            scramble_native(password, &server.scramble).to_vec()
        };
        HandshakeResponse {
            capabilities,
            mariadb_capabilities: 0,
            max_packet_size: 16 * 1024 * 1024,
            charset: charset::UTF8MB4_GENERAL_CI as u8,
            user: user.to_string(),
            auth_response,
            database: database.map(str::to_string),
            auth_plugin: Some(NATIVE_PASSWORD_PLUGIN.to_string()),
            connect_attrs: Vec::new(),
        }
    }
}

fn read_auth_response<'a>(r: &mut Reader<'a>, caps: u32) -> Result<&'a [u8]> {
    if caps & capability::PLUGIN_AUTH_LENENC_CLIENT_DATA != 0 {
        r.lenenc_bytes("auth response")
    } else if caps & capability::SECURE_CONNECTION != 0 {
        let len = r.u8("auth response")?;
        r.bytes(usize::from(len), "auth response")
    } else {
        Ok(r.nul_bytes_or_rest())
    }
}

fn read_database(r: &mut Reader<'_>, caps: u32) -> Result<Option<String>> {
    if caps & capability::CONNECT_WITH_DB == 0 || r.is_empty() {
        return Ok(None);
    }
    let db = utf8(r.nul_bytes_or_rest(), "database")?;
    Ok((!db.is_empty()).then(|| db.to_string()))
}

fn read_plugin(r: &mut Reader<'_>, caps: u32) -> Option<String> {
    if caps & capability::PLUGIN_AUTH == 0 || r.is_empty() {
        return None;
    }
    Some(String::from_utf8_lossy(r.nul_bytes_or_rest()).into_owned())
}

/// Connect attributes: lenenc total length, then lenenc key / lenenc value pairs.
fn read_connect_attrs(r: &mut Reader<'_>, caps: u32) -> Result<Vec<(String, String)>> {
    if caps & capability::CONNECT_ATTRS == 0 || r.is_empty() {
        return Ok(Vec::new());
    }
    let mut attrs = Reader::new(r.lenenc_bytes("connect attrs")?);
    let mut out = Vec::new();
    while !attrs.is_empty() {
        let key = attrs.lenenc_bytes("connect attr key")?;
        let value = attrs.lenenc_bytes("connect attr value")?;
        out.push((
            String::from_utf8_lossy(key).into_owned(),
            String::from_utf8_lossy(value).into_owned(),
        ));
    }
    Ok(out)
}

fn put_connect_attrs(out: &mut Vec<u8>, attrs: &[(String, String)]) {
    let mut body = Vec::new();
    for (key, value) in attrs {
        put_lenenc_bytes(&mut body, key.as_bytes());
        put_lenenc_bytes(&mut body, value.as_bytes());
    }
    put_lenenc_bytes(out, &body);
}

/// AuthSwitchRequest: asks the client to authenticate again with another plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthSwitchRequest {
    pub plugin: String,
    /// Plugin data; for native password the 20-byte scramble followed by `00`.
    pub data: Vec<u8>,
}

impl AuthSwitchRequest {
    /// Switch to `mysql_native_password` with `scramble`.
    pub fn native(scramble: &[u8; SCRAMBLE_LEN]) -> AuthSwitchRequest {
        let mut data = scramble.to_vec();
        data.push(0);
        AuthSwitchRequest {
            plugin: NATIVE_PASSWORD_PLUGIN.to_string(),
            data,
        }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(AUTH_SWITCH_HEADER);
        put_nul_bytes(out, self.plugin.as_bytes());
        out.extend_from_slice(&self.data);
    }

    /// Parses an AuthSwitchRequest (client side). A lone `fe` (the pre-4.1 "old password"
    /// switch) is rejected.
    pub fn parse(payload: &[u8]) -> Result<AuthSwitchRequest> {
        let mut r = Reader::new(payload);
        if r.u8("auth switch")? != AUTH_SWITCH_HEADER {
            return Err(ProtocolError::Malformed {
                what: "auth switch header",
            });
        }
        let plugin = utf8(r.nul_bytes("auth switch plugin")?, "auth switch plugin")?;
        Ok(AuthSwitchRequest {
            plugin: plugin.to_string(),
            data: r.rest().to_vec(),
        })
    }

    /// The scramble inside `data` (without the trailing NUL).
    pub fn scramble(&self) -> &[u8] {
        self.data.strip_suffix(&[0]).unwrap_or(&self.data)
    }
}

/// The body of COM_CHANGE_USER (after the `11` command byte):
///
/// ```text
/// user 00 | auth (u8 length + bytes if SECURE_CONNECTION, else NUL-terminated) | db 00
/// | [charset u16] | [plugin 00 if PLUGIN_AUTH] | [attrs if CONNECT_ATTRS]
/// ```
///
/// The optional fields depend on the capabilities negotiated at connect time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeUser {
    pub user: String,
    pub auth_response: Vec<u8>,
    pub database: Option<String>,
    pub charset: Option<u16>,
    pub auth_plugin: Option<String>,
    pub connect_attrs: Vec<(String, String)>,
}

impl ChangeUser {
    /// Parses the body; `caps` are the client's capabilities from the handshake.
    pub fn parse(body: &[u8], caps: u32) -> Result<ChangeUser> {
        let mut r = Reader::new(body);
        let user = utf8(r.nul_bytes("change user: user")?, "change user: user")?.to_string();
        let auth_response = if caps & capability::SECURE_CONNECTION != 0 {
            let len = r.u8("change user: auth")?;
            r.bytes(usize::from(len), "change user: auth")?.to_vec()
        } else {
            r.nul_bytes("change user: auth")?.to_vec()
        };
        let db = utf8(r.nul_bytes_or_rest(), "change user: database")?;
        let database = (!db.is_empty()).then(|| db.to_string());
        let charset = if r.remaining() >= 2 {
            Some(r.u16("change user: charset")?)
        } else {
            None
        };
        let auth_plugin = read_plugin(&mut r, caps);
        let connect_attrs = read_connect_attrs(&mut r, caps)?;
        Ok(ChangeUser {
            user,
            auth_response,
            database,
            charset,
            auth_plugin,
            connect_attrs,
        })
    }

    /// Appends the body (without the command byte) for a client with capabilities `caps`.
    pub fn encode(&self, out: &mut Vec<u8>, caps: u32) {
        put_nul_bytes(out, self.user.as_bytes());
        if caps & capability::SECURE_CONNECTION != 0 {
            let auth = &self.auth_response[..self.auth_response.len().min(255)];
            out.push(auth.len() as u8);
            out.extend_from_slice(auth);
        } else {
            put_nul_bytes(out, &self.auth_response);
        }
        put_nul_bytes(out, self.database.as_deref().unwrap_or("").as_bytes());
        put_u16(out, self.charset.unwrap_or(charset::UTF8MB4_GENERAL_CI));
        if caps & capability::PLUGIN_AUTH != 0 {
            put_nul_bytes(out, self.auth_plugin.as_deref().unwrap_or("").as_bytes());
        }
        if caps & capability::CONNECT_ATTRS != 0 {
            put_connect_attrs(out, &self.connect_attrs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{check_native, native_password_hash};
    use crate::flags::mariadb_capability;

    #[test]
    fn scramble_is_printable() {
        let s = scramble_from_random(std::array::from_fn(|i| (i * 37) as u8 ^ 0xA5));
        assert!(s.iter().all(|b| (0x21..=0x7e).contains(b)));
        assert_eq!(scramble_from_random([0; 20]), [0x21; 20]);
        assert_eq!(scramble_from_random([255; 20]), [0x21 + 255 % 94; 20]);
    }

    #[test]
    fn greeting_round_trips() {
        let hs = Handshake::new("8.0.36-cohort", 42, *b"abcdefghijklmnopqrst");
        let mut out = Vec::new();
        hs.encode(&mut out);
        assert_eq!(Handshake::parse(&out).unwrap(), hs);
    }

    #[test]
    fn greeting_carries_mariadb_capabilities_with_client_mysql_clear() {
        let hs = Handshake::new("5.5.5-10.11.19-MariaDB", 42, *b"abcdefghijklmnopqrst");
        assert_eq!(hs.capabilities & capability::LONG_PASSWORD, 0);
        let mut out = Vec::new();
        hs.encode(&mut out);
        // After the version: id (4), scramble (8), filler, caps low (2), charset, status (2),
        // caps high (2), auth data length: then 6 reserved bytes and the MariaDB flags.
        let at = 1 + hs.server_version.len() + 1 + 4 + 8 + 1 + 2 + 1 + 2 + 2 + 1;
        assert_eq!(&out[at..at + 6], &[0; 6]);
        assert_eq!(
            &out[at + 6..at + 10],
            &[12, 0, 0, 0],
            "EXTENDED_METADATA | STMT_BULK_OPERATIONS"
        );
        // With CLIENT_MYSQL set the bytes are filler.
        let mysql = Handshake {
            capabilities: hs.capabilities | capability::LONG_PASSWORD,
            ..hs.clone()
        };
        out.clear();
        mysql.encode(&mut out);
        assert_eq!(&out[at + 6..at + 10], &[0; 4]);
        assert_eq!(Handshake::parse(&out).unwrap().mariadb_capabilities, 0);
    }

    #[test]
    fn response_mariadb_capabilities_are_read_only_with_client_mysql_clear() {
        let hs = Handshake::new("5.5.5-10.11.19-MariaDB", 7, *b"ABCDEFGHIJKLMNOPQRST");
        let mut resp = HandshakeResponse::native("sb", "", None, &hs);
        resp.mariadb_capabilities = mariadb_capability::EXTENDED_METADATA;
        let mut out = Vec::new();
        resp.encode(&mut out);
        assert_eq!(&out[28..32], &[8, 0, 0, 0]);
        assert_eq!(HandshakeResponse::parse(&out).unwrap(), resp);
        // A MySQL-style client (CLIENT_MYSQL set) with junk in the reserved bytes.
        out[0] |= capability::LONG_PASSWORD as u8;
        let parsed = HandshakeResponse::parse(&out).unwrap();
        assert_eq!(parsed.mariadb_capabilities, 0);
    }

    #[test]
    fn native_login_round_trips_and_checks() {
        let hs = Handshake::new("8.0.36-cohort", 7, *b"ABCDEFGHIJKLMNOPQRST");
        let resp = HandshakeResponse::native("sb", "sb", Some("sbtest"), &hs);
        let mut out = Vec::new();
        resp.encode(&mut out);
        let parsed = HandshakeResponse::parse(&out).unwrap();
        assert_eq!(parsed, resp);
        assert_eq!(parsed.database.as_deref(), Some("sbtest"));
        assert!(check_native(
            &native_password_hash("sb"),
            &hs.scramble,
            &parsed.auth_response
        ));
    }

    #[test]
    fn empty_password_sends_empty_token() {
        let hs = Handshake::new("8.0.36-cohort", 7, *b"ABCDEFGHIJKLMNOPQRST");
        let resp = HandshakeResponse::native("root", "", None, &hs);
        assert!(resp.auth_response.is_empty());
        assert_eq!(resp.capabilities & capability::CONNECT_WITH_DB, 0);
    }

    #[test]
    fn ssl_request_is_reported() {
        let mut payload = Vec::new();
        put_u32(
            &mut payload,
            capability::PROTOCOL_41 | capability::SSL | capability::SECURE_CONNECTION,
        );
        payload.resize(32, 0);
        assert_eq!(
            HandshakeResponse::parse(&payload),
            Err(ProtocolError::SslRequested)
        );
    }

    #[test]
    fn ssl_request_round_trips_and_only_32_bytes_with_ssl_qualify() {
        let hs = Handshake::new("8.0.36-cohort", 7, *b"ABCDEFGHIJKLMNOPQRST");
        let resp = HandshakeResponse::native("sb", "sb", Some("sbtest"), &hs);
        let req = SslRequest::before(&resp);
        let mut out = Vec::new();
        req.encode(&mut out);
        assert_eq!(out.len(), SSL_REQUEST_LEN);
        assert_eq!(out.len(), 32);
        let parsed = SslRequest::parse(&out).unwrap();
        assert_eq!(parsed, req);
        assert_ne!(parsed.capabilities & capability::SSL, 0);
        // The same 32 bytes are the start of the full response with SSL set.
        let mut full = Vec::new();
        HandshakeResponse {
            capabilities: resp.capabilities | capability::SSL,
            ..resp.clone()
        }
        .encode(&mut full);
        assert_eq!(&full[..32], &out[..]);
        assert_eq!(SslRequest::parse(&full), None, "a full response is not one");
        // Without SSL, or pre-4.1, or one byte short: not an SSLRequest.
        let mut no_ssl = out.clone();
        no_ssl[1] &= !((capability::SSL >> 8) as u8);
        assert_eq!(SslRequest::parse(&no_ssl), None);
        let mut old = out.clone();
        old[1] &= !((capability::PROTOCOL_41 >> 8) as u8);
        assert_eq!(SslRequest::parse(&old), None);
        assert_eq!(SslRequest::parse(&out[..31]), None);
        assert_eq!(SslRequest::parse(&[]), None);
    }

    #[test]
    fn auth_switch_layout() {
        let req = AuthSwitchRequest::native(b"01234567890123456789");
        let mut out = Vec::new();
        req.encode(&mut out);
        assert_eq!(out[0], 0xFE);
        assert_eq!(&out[1..23], b"mysql_native_password\0");
        assert_eq!(&out[23..43], b"01234567890123456789");
        assert_eq!(out[43], 0);
        assert_eq!(out.len(), 44);
        let parsed = AuthSwitchRequest::parse(&out).unwrap();
        assert_eq!(parsed.scramble(), b"01234567890123456789");
        assert!(AuthSwitchRequest::parse(&[0xFE]).is_err());
    }

    #[test]
    fn change_user_round_trips() {
        let caps = SERVER_CAPABILITIES;
        let cu = ChangeUser {
            user: "sb".into(),
            auth_response: vec![1; 20],
            database: Some("sbtest".into()),
            charset: Some(45),
            auth_plugin: Some(NATIVE_PASSWORD_PLUGIN.into()),
            connect_attrs: vec![("_client_name".into(), "x".into())],
        };
        let mut out = Vec::new();
        cu.encode(&mut out, caps);
        assert_eq!(ChangeUser::parse(&out, caps).unwrap(), cu);
        // Minimal old-style body: user, auth, db only.
        let parsed = ChangeUser::parse(b"u\0\x00\0", caps).unwrap();
        assert_eq!(parsed.user, "u");
        assert_eq!(parsed.database, None);
        assert_eq!(parsed.charset, None);
    }
}
