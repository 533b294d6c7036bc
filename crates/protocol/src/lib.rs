//! The MySQL client/server protocol, sans-IO: bytes in, values out; values in, bytes out.
//!
//! # The wire
//!
//! Everything travels in packets: a 3-byte little-endian payload length, a 1-byte sequence
//! id, then the payload. A payload of 16 MiB − 1 (`0xFFFFFF`) bytes or more is split over
//! several packets. The client starts each command at sequence id 0 and every packet in
//! either direction takes the next id (wrapping at 256). See [`packet`].
//!
//! A connection starts with the server's [`Handshake`] (HandshakeV10), the client's
//! [`HandshakeResponse`] and an OK or ERR (possibly after an [`AuthSwitchRequest`]). Then the
//! client sends [`Command`]s and the server answers each with OK / ERR / a result set /
//! PREPARE_OK ([`response`]), or nothing for COM_QUIT, COM_STMT_CLOSE and
//! COM_STMT_SEND_LONG_DATA.
//!
//! # What this crate does
//!
//! * framing: [`PacketReader`] (incremental, reassembles split payloads, checks sequence ids,
//!   detects over-size payloads from the header) and [`PacketWriter`] (batches a whole
//!   response into one buffer);
//! * the connection phase, `mysql_native_password` ([`check_native`], [`scramble_native`]);
//! * command parsing, COM_STMT_EXECUTE parameter decoding with remembered types and long
//!   data ([`parse_execute`], [`parse_params`]);
//! * OK / ERR / EOF / column definition / PREPARE_OK encoding, text and binary rows from
//!   [`Cell`]s ([`PacketWriter::write_result_set_start`], [`PacketWriter::write_text_row`],
//!   [`PacketWriter::write_binary_row`], …);
//! * the client side needed by `cohort bench`: greeting parsing, login, request encoding and
//!   a [`ResponseDecoder`].
//!
//! # What it does not do
//!
//! No sockets, threads, clocks or random numbers: the caller moves the bytes, supplies the
//! scramble's randomness and keeps per-connection and per-statement state (capabilities,
//! remembered parameter types, long data). No SQL, no session logic, no dependency on the
//! server's types: values cross the boundary as [`Cell`] (out) and [`ParamValue`] (in).
//! Session-state tracking: the OK packet's tail ([`session_state`]); MariaDB's extended
//! column metadata ([`ExtendedTypeInfo`], [`PacketWriter::set_extended_metadata`]).
//!
//! Not implemented: TLS, compression, `caching_sha2_password`, CLIENT_DEPRECATE_EOF,
//! cursors (COM_STMT_FETCH is parsed but has no response encoder), MariaDB's other protocol
//! extensions (progress reports, bulk operations, metadata caching). LOAD DATA LOCAL INFILE is the 0xFB request
//! ([`PacketWriter::write_local_infile_request`]); the file's packets are plain packets.
//!
//! Decoders never panic on any input; failures are [`ProtocolError`]s, which map to the
//! MySQL error the server should send ([`ProtocolError::error_code`]).
//!
//! # A server's command loop, in outline
//!
//! ```
//! use cohort_protocol::*;
//!
//! let mut reader = PacketReader::new(16 * 1024 * 1024);
//! let mut writer = PacketWriter::new();
//! reader.feed(&[1, 0, 0, 0, 0x0e]); // bytes from the socket: COM_PING
//! reader.set_next_seq(0); // every command starts at 0
//! if let Some(packet) = reader.next_packet().unwrap() {
//!     writer.set_seq(packet.next_seq());
//!     match Command::parse(packet.payload, SERVER_CAPABILITIES).unwrap() {
//!         Command::Ping => writer.write_ok(&OkPacket::new(status::AUTOCOMMIT)),
//!         _ => writer.write_err(ErrorCode::UnknownCom, "Unknown command"),
//!     }
//! }
//! assert_eq!(writer.bytes(), &[7, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]); // write it, then clear
//! ```

pub mod auth;
pub mod bulk;
pub mod client;
pub mod codec;
pub mod column;
pub mod command;
pub mod error;
pub mod error_code;
pub mod execute;
pub mod flags;
pub mod handshake;
pub mod packet;
pub mod replication;
pub mod response;
pub mod row;
pub mod session_state;
pub mod value;

pub use auth::{
    check_native, native_hash_from_hex, native_hash_to_hex, native_password_hash, scramble_native,
    NATIVE_PASSWORD_PLUGIN,
};
pub use client::{ResponseDecoder, ResponseEvent};
pub use column::{charset, column_flags, ColumnDefinition, ColumnType, ExtendedTypeInfo};
pub use command::{command_code, encode_prepare, encode_query, encode_stmt_close, Command};
pub use error::ProtocolError;
pub use error_code::ErrorCode;
pub use execute::{
    encode_execute, parse_execute, parse_params, peek_stmt_id, Execute, ParamType,
    UNSIGNED_PARAM_FLAG,
};
pub use flags::{
    capability, mariadb_capability, status, CLIENT_CAPABILITIES, SERVER_CAPABILITIES,
    SERVER_MARIADB_CAPABILITIES,
};
pub use handshake::{
    scramble_from_random, AuthSwitchRequest, ChangeUser, Handshake, HandshakeResponse, SslRequest,
    SCRAMBLE_LEN, SSL_REQUEST_LEN,
};
pub use packet::{write_packet, Packet, PacketReader, PacketWriter, HEADER_LEN, MAX_CHUNK};
pub use response::{
    encode_column_count, encode_err, is_eof_packet, EofPacket, ErrPacket, OkPacket, PrepareOk,
};
pub use row::{parse_binary_row, parse_text_row, write_binary_row, write_text_row};
pub use session_state::{parse_session_state, track_type, SessionStateChanges, StateEntry};
pub use value::{Cell, Date, DateTime, ParamValue, Time};
