//! Server responses: OK, ERR, EOF, result-set headers, PREPARE_OK — encoders for the server,
//! parsers for the bench client — and [`PacketWriter`] helpers that frame whole responses.
//!
//! ```text
//! OK          00 | affected_rows lenenc | last_insert_id lenenc | status u16 | warnings u16
//!                | [info lenenc]          (info is always length-encoded: libmariadb requires it)
//!                | [session state lenenc] (CLIENT_SESSION_TRACK with SERVER_SESSION_STATE_CHANGED
//!                                         only; the info, even empty, is then present)
//! ERR         ff | code u16 | '#' | sqlstate [5] | message (string<EOF>)
//! EOF         fe | warnings u16 | status u16      (5 bytes; a payload starting fe and shorter
//!                                                  than 9 bytes is an EOF, never a row)
//! PREPARE_OK  00 | stmt_id u32 | num_columns u16 | num_params u16 | 00 | warnings u16
//! column count: lenenc
//! ```
//!
//! COM_FIELD_LIST is answered with column definitions that each end with the default value
//! (lenenc; `fb` = NULL), then EOF.
//!
//! A text or binary result set is `column count`, one column definition per column, EOF,
//! the rows, EOF. The response to COM_STMT_PREPARE is PREPARE_OK, then — if there are
//! parameters — one parameter definition each and EOF, then — if there are columns — one
//! column definition each and EOF. CLIENT_DEPRECATE_EOF is never negotiated, so the EOF
//! packets are always present.

use std::borrow::Cow;

use crate::codec::{put_lenenc_bytes, put_lenenc_int, put_u16, put_u32, Reader, NULL_MARKER};
use crate::column::ColumnDefinition;
use crate::error::{ProtocolError, Result};
use crate::error_code::ErrorCode;
use crate::packet::PacketWriter;
use crate::row::{write_binary_row, write_text_row};
use crate::value::Cell;

pub const OK_HEADER: u8 = 0x00;
pub const ERR_HEADER: u8 = 0xFF;
pub const EOF_HEADER: u8 = 0xFE;
/// An EOF packet is shorter than this (a lenenc-prefixed row starting `fe` is longer).
const EOF_MAX_LEN: usize = 9;
const SQLSTATE_MARKER: u8 = b'#';
const DEFAULT_SQLSTATE: &[u8; 5] = b"HY000";

/// An OK packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct OkPacket<'a> {
    pub affected_rows: u64,
    pub last_insert_id: u64,
    pub status: u16,
    pub warnings: u16,
    /// Human-readable info (`Rows matched: 1  Changed: 1  Warnings: 0`); usually empty.
    pub info: &'a [u8],
    /// The session state changes ([`crate::session_state::SessionStateChanges`]): only for a
    /// client that negotiated CLIENT_SESSION_TRACK, with SERVER_SESSION_STATE_CHANGED in
    /// `status`; usually empty (then nothing is sent).
    pub session_state: &'a [u8],
}

impl<'a> OkPacket<'a> {
    /// An OK with nothing but a status.
    pub fn new(status: u16) -> OkPacket<'static> {
        OkPacket {
            status,
            ..OkPacket::default()
        }
    }

    /// Appends the payload. An empty `info` is omitted, unless session state follows.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(OK_HEADER);
        put_lenenc_int(out, self.affected_rows);
        put_lenenc_int(out, self.last_insert_id);
        put_u16(out, self.status);
        put_u16(out, self.warnings);
        if !self.info.is_empty() || !self.session_state.is_empty() {
            put_lenenc_bytes(out, self.info);
        }
        if !self.session_state.is_empty() {
            put_lenenc_bytes(out, self.session_state);
        }
    }

    /// Parses an OK payload (client side).
    pub fn parse(payload: &'a [u8]) -> Result<OkPacket<'a>> {
        let mut r = Reader::new(payload);
        if r.u8("OK header")? != OK_HEADER {
            return Err(ProtocolError::Malformed { what: "OK header" });
        }
        let affected_rows = r.lenenc_int("OK affected rows")?;
        let last_insert_id = r.lenenc_int("OK last insert id")?;
        let status = r.u16("OK status")?;
        let warnings = r.u16("OK warnings")?;
        let info = if r.is_empty() {
            &[][..]
        } else {
            r.lenenc_bytes("OK info")?
        };
        let session_state = if r.is_empty() {
            &[][..]
        } else {
            r.lenenc_bytes("OK session state")?
        };
        Ok(OkPacket {
            affected_rows,
            last_insert_id,
            status,
            warnings,
            info,
            session_state,
        })
    }
}

/// An ERR packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrPacket<'a> {
    pub code: u16,
    pub sqlstate: [u8; 5],
    pub message: &'a [u8],
}

impl<'a> ErrPacket<'a> {
    /// An ERR for one of our error codes.
    pub fn new(code: ErrorCode, message: &'a str) -> ErrPacket<'a> {
        let mut sqlstate = *DEFAULT_SQLSTATE;
        if let Ok(state) = <[u8; 5]>::try_from(code.sqlstate().as_bytes()) {
            sqlstate = state;
        }
        ErrPacket {
            code: code.number(),
            sqlstate,
            message: message.as_bytes(),
        }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(ERR_HEADER);
        put_u16(out, self.code);
        out.push(SQLSTATE_MARKER);
        out.extend_from_slice(&self.sqlstate);
        out.extend_from_slice(self.message);
    }

    /// Parses an ERR payload (client side); a missing `#sqlstate` reads as HY000.
    pub fn parse(payload: &'a [u8]) -> Result<ErrPacket<'a>> {
        let mut r = Reader::new(payload);
        if r.u8("ERR header")? != ERR_HEADER {
            return Err(ProtocolError::Malformed { what: "ERR header" });
        }
        let code = r.u16("ERR code")?;
        let mut sqlstate = *DEFAULT_SQLSTATE;
        if r.peek_u8() == Some(SQLSTATE_MARKER) && r.remaining() >= 6 {
            r.skip(1, "ERR sqlstate marker")?;
            sqlstate.copy_from_slice(r.bytes(5, "ERR sqlstate")?);
        }
        Ok(ErrPacket {
            code,
            sqlstate,
            message: r.rest(),
        })
    }

    /// The message as text (lossy).
    pub fn message_text(&self) -> String {
        String::from_utf8_lossy(self.message).into_owned()
    }
}

/// Appends an ERR payload for `code` with `message`.
pub fn encode_err(out: &mut Vec<u8>, code: ErrorCode, message: &str) {
    ErrPacket::new(code, message).encode(out);
}

/// An EOF packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EofPacket {
    pub warnings: u16,
    pub status: u16,
}

impl EofPacket {
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(EOF_HEADER);
        put_u16(out, self.warnings);
        put_u16(out, self.status);
    }

    /// Parses an EOF payload (client side).
    pub fn parse(payload: &[u8]) -> Result<EofPacket> {
        if !is_eof_packet(payload) {
            return Err(ProtocolError::Malformed { what: "EOF packet" });
        }
        let mut r = Reader::new(&payload[1..]);
        Ok(EofPacket {
            warnings: r.u16("EOF warnings")?,
            status: r.u16("EOF status")?,
        })
    }
}

/// True if `payload` is an EOF packet (header `fe`, shorter than 9 bytes).
pub fn is_eof_packet(payload: &[u8]) -> bool {
    payload.first() == Some(&EOF_HEADER) && payload.len() < EOF_MAX_LEN
}

/// Appends the column-count payload that starts a result set.
pub fn encode_column_count(out: &mut Vec<u8>, columns: u64) {
    put_lenenc_int(out, columns);
}

/// PREPARE_OK, the first packet of a successful COM_STMT_PREPARE response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PrepareOk {
    pub stmt_id: u32,
    pub num_columns: u16,
    pub num_params: u16,
    pub warnings: u16,
}

impl PrepareOk {
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(OK_HEADER);
        put_u32(out, self.stmt_id);
        put_u16(out, self.num_columns);
        put_u16(out, self.num_params);
        out.push(0);
        put_u16(out, self.warnings);
    }

    /// Parses a PREPARE_OK payload (client side).
    pub fn parse(payload: &[u8]) -> Result<PrepareOk> {
        let mut r = Reader::new(payload);
        if r.u8("PREPARE_OK header")? != OK_HEADER {
            return Err(ProtocolError::Malformed {
                what: "PREPARE_OK header",
            });
        }
        let stmt_id = r.u32("PREPARE_OK statement id")?;
        let num_columns = r.u16("PREPARE_OK columns")?;
        let num_params = r.u16("PREPARE_OK params")?;
        r.skip(1, "PREPARE_OK filler")?;
        // Very old servers stop before the warning count.
        let warnings = if r.remaining() >= 2 {
            r.u16("PREPARE_OK warnings")?
        } else {
            0
        };
        Ok(PrepareOk {
            stmt_id,
            num_columns,
            num_params,
            warnings,
        })
    }
}

/// Whole-response helpers: each appends complete, numbered packets.
impl PacketWriter {
    pub fn write_ok(&mut self, ok: &OkPacket) {
        self.write_with(|out| ok.encode(out));
    }

    pub fn write_err(&mut self, code: ErrorCode, message: &str) {
        self.write_with(|out| encode_err(out, code, message));
    }

    /// LOAD DATA LOCAL's request (0xFB, then the file name): the client answers with the
    /// file's bytes in packets of the same sequence, then an empty packet.
    pub fn write_local_infile_request(&mut self, file: &[u8]) {
        self.write_with(|out| {
            out.push(0xFB);
            out.extend_from_slice(file);
        });
    }

    pub fn write_eof(&mut self, warnings: u16, status: u16) {
        self.write_with(|out| EofPacket { warnings, status }.encode(out));
    }

    /// Column count, the column definitions, EOF: everything before the rows.
    pub fn write_result_set_start(&mut self, columns: &[ColumnDefinition], status: u16) {
        self.write_result_set_start_names(columns, status, &|n| Cow::Borrowed(n.as_bytes()));
    }

    /// [`Self::write_result_set_start`] with each name of the definitions written as `names`
    /// makes it (converted to the client's character set).
    pub fn write_result_set_start_names(
        &mut self,
        columns: &[ColumnDefinition],
        status: u16,
        names: &dyn Fn(&str) -> Cow<'_, [u8]>,
    ) {
        self.write_with(|out| encode_column_count(out, columns.len() as u64));
        self.write_column_definitions(columns, status, names);
    }

    /// One definition per column, then EOF.
    fn write_column_definitions(
        &mut self,
        columns: &[ColumnDefinition],
        status: u16,
        names: &dyn Fn(&str) -> Cow<'_, [u8]>,
    ) {
        let extended = self.extended_metadata();
        for column in columns {
            self.write_with(|out| column.encode_names_with(out, extended, names));
        }
        self.write_eof(0, status);
    }

    /// One column of a COM_FIELD_LIST response: its definition followed by its default
    /// value (`None` = NULL). End the response with [`PacketWriter::write_eof`].
    pub fn write_field_list_column(&mut self, column: &ColumnDefinition, default: Option<&[u8]>) {
        let extended = self.extended_metadata();
        self.write_with(|out| {
            column.encode_with(out, extended);
            match default {
                Some(value) => put_lenenc_bytes(out, value),
                None => out.push(NULL_MARKER),
            }
        });
    }

    /// One text-protocol row. On error nothing is written.
    pub fn write_text_row(&mut self, columns: &[ColumnDefinition], cells: &[Cell]) -> Result<()> {
        self.try_write_with(|out| write_text_row(out, columns, cells))
    }

    /// One binary-protocol row. On error nothing is written.
    pub fn write_binary_row(&mut self, columns: &[ColumnDefinition], cells: &[Cell]) -> Result<()> {
        self.try_write_with(|out| write_binary_row(out, columns, cells))
    }

    /// The EOF that ends the rows.
    pub fn write_result_set_end(&mut self, warnings: u16, status: u16) {
        self.write_eof(warnings, status);
    }

    /// The whole COM_STMT_PREPARE response: PREPARE_OK, `num_params` parameter definitions
    /// and EOF (if any), the column definitions and EOF (if any).
    pub fn write_prepare_ok(
        &mut self,
        stmt_id: u32,
        num_params: u16,
        columns: &[ColumnDefinition],
        warnings: u16,
        status: u16,
    ) {
        let ok = PrepareOk {
            stmt_id,
            num_columns: columns.len() as u16,
            num_params,
            warnings,
        };
        self.write_with(|out| ok.encode(out));
        if num_params > 0 {
            let mut param = Vec::new();
            ColumnDefinition::param().encode_with(&mut param, self.extended_metadata());
            for _ in 0..num_params {
                self.write_payload(&param);
            }
            self.write_eof(0, status);
        }
        if !columns.is_empty() {
            self.write_column_definitions(columns, status, &|n| Cow::Borrowed(n.as_bytes()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::status;

    #[test]
    fn ok_layouts() {
        let mut out = Vec::new();
        OkPacket::new(status::AUTOCOMMIT).encode(&mut out);
        assert_eq!(out, [0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]);
        let ok = OkPacket {
            affected_rows: 1,
            last_insert_id: 300,
            status: 3,
            warnings: 0,
            info: b"Rows matched: 1  Changed: 1  Warnings: 0",
            session_state: b"",
        };
        out.clear();
        ok.encode(&mut out);
        assert_eq!(&out[..8], &[0x00, 0x01, 0xFC, 0x2C, 0x01, 0x03, 0x00, 0x00]);
        assert_eq!(out[9], 40);
        assert_eq!(OkPacket::parse(&out), Ok(ok));
        assert!(OkPacket::parse(&[0x00, 0x01]).is_err());
    }

    #[test]
    fn err_layout_and_parse() {
        let mut out = Vec::new();
        encode_err(&mut out, ErrorCode::LockDeadlock, "Deadlock found");
        assert_eq!(&out[..9], b"\xff\xbd\x04#40001");
        let err = ErrPacket::parse(&out).unwrap();
        assert_eq!(err.code, 1213);
        assert_eq!(&err.sqlstate, b"40001");
        assert_eq!(err.message_text(), "Deadlock found");
        // Pre-4.1 form without the marker.
        let old = ErrPacket::parse(b"\xff\x10\x04Too many").unwrap();
        assert_eq!(
            (old.code, &old.sqlstate, old.message),
            (1040, b"HY000", &b"Too many"[..])
        );
    }

    #[test]
    fn eof_detection() {
        let mut out = Vec::new();
        EofPacket {
            warnings: 0,
            status: 2,
        }
        .encode(&mut out);
        assert_eq!(out, [0xFE, 0, 0, 2, 0]);
        assert!(is_eof_packet(&out));
        assert_eq!(EofPacket::parse(&out).unwrap().status, 2);
        // A text row whose first field is 0xfe-prefixed (long string) is not EOF.
        assert!(!is_eof_packet(&[0xFE, 0, 0, 0, 0, 0, 0, 0, 0, 1]));
        assert!(EofPacket::parse(&[0xFE, 0]).is_err());
    }

    #[test]
    fn prepare_ok_round_trip() {
        let ok = PrepareOk {
            stmt_id: 3,
            num_columns: 1,
            num_params: 1,
            warnings: 0,
        };
        let mut out = Vec::new();
        ok.encode(&mut out);
        assert_eq!(out, [0x00, 3, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0]);
        assert_eq!(PrepareOk::parse(&out), Ok(ok));
    }

    #[test]
    fn prepare_response_without_params_or_columns_is_one_packet() {
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_prepare_ok(1, 0, &[], 0, status::AUTOCOMMIT);
        assert_eq!(
            w.bytes(),
            &[12, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(w.seq(), 2);
    }
}
