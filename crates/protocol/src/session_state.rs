//! Session state changes: the tail of an OK packet for a client that negotiated
//! `CLIENT_SESSION_TRACK` (the server then sets `SERVER_SESSION_STATE_CHANGED` in the status).
//!
//! ```text
//! OK … | info lenenc | state lenenc      state = one or more entries:
//!                                          type u8 | data lenenc
//! SYSTEM_VARIABLES (0)          data = name lenenc | value lenenc
//! SCHEMA (1)                    data = schema lenenc
//! STATE_CHANGE (2)              data = "1" (the one entry whose data is not a lenenc string)
//! GTIDS (3)                     (not sent by MariaDB 10.11 nor Cohort)
//! TRANSACTION_CHARACTERISTICS (4) data = text lenenc
//! TRANSACTION_STATE (5)         data = text lenenc
//! ```
//!
//! MariaDB 10.11 sends, in this order: the system variables, the schema, the state change
//! flag. [`SessionStateChanges`] builds the bytes; which changes to report is the server's
//! business (its `session_track_*` variables).

use crate::codec::{put_lenenc_bytes, put_lenenc_int};

/// The entry types (`SESSION_TRACK_*`).
pub mod track_type {
    pub const SYSTEM_VARIABLES: u8 = 0;
    pub const SCHEMA: u8 = 1;
    pub const STATE_CHANGE: u8 = 2;
    pub const GTIDS: u8 = 3;
    pub const TRANSACTION_CHARACTERISTICS: u8 = 4;
    pub const TRANSACTION_STATE: u8 = 5;
}

/// The session state block of one OK packet, built entry by entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionStateChanges {
    buf: Vec<u8>,
}

impl SessionStateChanges {
    pub fn new() -> SessionStateChanges {
        SessionStateChanges::default()
    }

    /// A system variable's new value (its text, as `SELECT @@name` would show it).
    pub fn system_variable(&mut self, name: &[u8], value: &[u8]) {
        self.buf.push(track_type::SYSTEM_VARIABLES);
        let len = lenenc_len(name.len()) + name.len() + lenenc_len(value.len()) + value.len();
        put_lenenc_int(&mut self.buf, len as u64);
        put_lenenc_bytes(&mut self.buf, name);
        put_lenenc_bytes(&mut self.buf, value);
    }

    /// The current schema changed (USE, COM_INIT_DB, a connection with a database).
    pub fn schema(&mut self, schema: &[u8]) {
        self.entry(track_type::SCHEMA, schema);
    }

    /// Something of the session's state changed (`session_track_state_change`).
    pub fn state_change(&mut self) {
        self.buf
            .extend_from_slice(&[track_type::STATE_CHANGE, 1, b'1']);
    }

    /// The characteristics of the transaction (`session_track_transaction_info =
    /// CHARACTERISTICS`): the statements that would recreate them.
    pub fn transaction_characteristics(&mut self, text: &[u8]) {
        self.entry(track_type::TRANSACTION_CHARACTERISTICS, text);
    }

    /// The transaction state (`session_track_transaction_info = STATE`): 8 characters.
    pub fn transaction_state(&mut self, text: &[u8]) {
        self.entry(track_type::TRANSACTION_STATE, text);
    }

    /// An entry whose data is one length-encoded string.
    fn entry(&mut self, kind: u8, text: &[u8]) {
        self.buf.push(kind);
        put_lenenc_int(&mut self.buf, (lenenc_len(text.len()) + text.len()) as u64);
        put_lenenc_bytes(&mut self.buf, text);
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The block to put in [`crate::OkPacket::session_state`].
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn clear(&mut self) {
        self.buf.clear();
    }
}

/// Bytes of a length-encoded integer's encoding.
fn lenenc_len(n: usize) -> usize {
    match n {
        0..=250 => 1,
        251..=0xFFFF => 3,
        0x1_0000..=0xFF_FFFF => 4,
        _ => 9,
    }
}

/// One entry of a session state block (client side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateEntry<'a> {
    pub kind: u8,
    /// The entry's data (for SYSTEM_VARIABLES: name lenenc | value lenenc).
    pub data: &'a [u8],
}

/// Splits a session state block into its entries (client side, and for tests).
pub fn parse_session_state(block: &[u8]) -> crate::error::Result<Vec<StateEntry<'_>>> {
    let mut r = crate::codec::Reader::new(block);
    let mut out = Vec::new();
    while !r.is_empty() {
        let kind = r.u8("session state type")?;
        let data = r.lenenc_bytes("session state data")?;
        out.push(StateEntry { kind, data });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::status;
    use crate::response::OkPacket;

    /// `SET autocommit = 0` with the default tracking, as MariaDB 10.11 answers it.
    #[test]
    fn system_variable_ok_is_mariadbs_bytes() {
        let mut changes = SessionStateChanges::new();
        changes.system_variable(b"autocommit", b"OFF");
        let ok = OkPacket {
            status: status::SESSION_STATE_CHANGED,
            session_state: changes.as_bytes(),
            ..OkPacket::default()
        };
        let mut out = Vec::new();
        ok.encode(&mut out);
        let mut want = vec![
            0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x11, 0x00, 0x0f,
        ];
        want.extend_from_slice(b"\x0aautocommit\x03OFF");
        assert_eq!(out, want);
        let parsed = OkPacket::parse(&out).unwrap();
        assert_eq!(parsed, ok);
        let entries = parse_session_state(parsed.session_state).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].kind, track_type::SYSTEM_VARIABLES);
        assert_eq!(entries[0].data, b"\x0aautocommit\x03OFF");
    }

    /// `USE d1` with `session_track_state_change = ON`: schema, then the state change.
    #[test]
    fn schema_and_state_change_are_mariadbs_bytes() {
        let mut changes = SessionStateChanges::new();
        changes.schema(b"d1");
        changes.state_change();
        assert_eq!(changes.as_bytes(), b"\x01\x03\x02d1\x02\x011");
        let ok = OkPacket {
            status: status::AUTOCOMMIT | status::SESSION_STATE_CHANGED,
            session_state: changes.as_bytes(),
            ..OkPacket::default()
        };
        let mut out = Vec::new();
        ok.encode(&mut out);
        assert_eq!(
            out,
            b"\x00\x00\x00\x02\x40\x00\x00\x00\x08\x01\x03\x02d1\x02\x011"
        );
    }

    /// Info and state together (PREPARE with state tracking), and no state: no tail.
    #[test]
    fn info_comes_before_the_state_and_nothing_is_sent_without_either() {
        let mut changes = SessionStateChanges::new();
        changes.state_change();
        let ok = OkPacket {
            status: status::AUTOCOMMIT | status::SESSION_STATE_CHANGED,
            info: b"Statement prepared",
            session_state: changes.as_bytes(),
            ..OkPacket::default()
        };
        let mut out = Vec::new();
        ok.encode(&mut out);
        let mut want = b"\x00\x00\x00\x02\x40\x00\x00\x12Statement prepared".to_vec();
        want.extend_from_slice(b"\x03\x02\x011");
        let entries = parse_session_state(&out[out.len() - 3..]).unwrap();
        assert_eq!(entries[0].data, b"1");
        assert_eq!(out, want);
        out.clear();
        OkPacket::new(status::AUTOCOMMIT).encode(&mut out);
        assert_eq!(out, [0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn long_values_use_wider_lengths() {
        let value = vec![b'x'; 300];
        let mut changes = SessionStateChanges::new();
        changes.system_variable(b"sql_mode", &value);
        let entries = parse_session_state(changes.as_bytes()).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].data.len(), 1 + 8 + 3 + 300);
        assert!(parse_session_state(&changes.as_bytes()[..20]).is_err());
    }
}
