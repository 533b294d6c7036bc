//! Commands: the first packet of every client request, `command byte | body`.
//!
//! | byte | command | body | reply |
//! |---|---|---|---|
//! | 01 | COM_QUIT | – | none |
//! | 02 | COM_INIT_DB | schema name (`string<EOF>`) | OK / ERR |
//! | 03 | COM_QUERY | SQL text (`string<EOF>`) | OK / ERR / text result set |
//! | 04 | COM_FIELD_LIST | table 00, wildcard (`string<EOF>`) | column defs + EOF |
//! | 08 | COM_SHUTDOWN | optional level u8 | OK / ERR, then the server stops |
//! | 09 | COM_STATISTICS | – | a status line (`string<EOF>`, no OK header) |
//! | 0c | COM_PROCESS_KILL | connection id u32 | OK / ERR |
//! | 0e | COM_PING | – | OK |
//! | 11 | COM_CHANGE_USER | see [`ChangeUser`] | OK / ERR / auth switch |
//! | 12 | COM_BINLOG_DUMP | see [`crate::replication::BinlogDump`] | a stream of events / ERR |
//! | 15 | COM_REGISTER_SLAVE | see [`crate::replication::RegisterSlave`] | OK / ERR |
//! | 16 | COM_STMT_PREPARE | SQL text | PREPARE_OK … / ERR |
//! | 17 | COM_STMT_EXECUTE | stmt u32, flags u8, iterations u32, params (see [`crate::execute`]) | OK / ERR / binary result set |
//! | 18 | COM_STMT_SEND_LONG_DATA | stmt u32, param u16, data | none |
//! | 19 | COM_STMT_CLOSE | stmt u32 | none |
//! | 1a | COM_STMT_RESET | stmt u32 | OK |
//! | 1b | COM_SET_OPTION | option u16 | EOF / ERR |
//! | 1c | COM_STMT_FETCH | stmt u32, rows u32 | rows / ERR |
//! | 1f | COM_RESET_CONNECTION | – | OK |
//! | fa | COM_STMT_BULK_EXECUTE | stmt u32, bulk flags u16, types, rows (see [`crate::bulk`]) | OK / ERR |
//! | other | [`Command::Unknown`] | | ERR 1047 |
//!
//! [`Command::parse`] borrows from the payload (no copies, except COM_CHANGE_USER) and
//! rejects truncated bodies with an error. [`Command::encode`] is the client-side inverse.

use crate::codec::{put_nul_bytes, put_u16, put_u32, utf8, Reader};
use crate::error::Result;
use crate::handshake::ChangeUser;
use crate::replication::{BinlogDump, RegisterSlave};

/// Command bytes (`COM_*`).
pub mod command_code {
    pub const SLEEP: u8 = 0x00;
    pub const QUIT: u8 = 0x01;
    pub const INIT_DB: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const FIELD_LIST: u8 = 0x04;
    pub const SHUTDOWN: u8 = 0x08;
    pub const STATISTICS: u8 = 0x09;
    pub const PROCESS_KILL: u8 = 0x0c;
    pub const PING: u8 = 0x0e;
    pub const CHANGE_USER: u8 = 0x11;
    pub const BINLOG_DUMP: u8 = 0x12;
    pub const REGISTER_SLAVE: u8 = 0x15;
    pub const STMT_PREPARE: u8 = 0x16;
    pub const STMT_EXECUTE: u8 = 0x17;
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const STMT_CLOSE: u8 = 0x19;
    pub const STMT_RESET: u8 = 0x1a;
    pub const SET_OPTION: u8 = 0x1b;
    pub const STMT_FETCH: u8 = 0x1c;
    /// MySQL's GTID dump: MariaDB answers it as an unknown command.
    pub const BINLOG_DUMP_GTID: u8 = 0x1e;
    pub const RESET_CONNECTION: u8 = 0x1f;
    pub const STMT_BULK_EXECUTE: u8 = 0xfa;
}

use command_code as code;

/// One parsed client command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command<'a> {
    Quit,
    InitDb(&'a str),
    /// SQL text as sent; the connection charset (utf8mb4) says how to read it.
    Query(&'a [u8]),
    FieldList {
        table: &'a str,
        wildcard: &'a [u8],
    },
    Ping,
    /// COM_STATISTICS (`mariadb-admin status`).
    Statistics,
    /// COM_SHUTDOWN (`mariadb-admin shutdown`); the level byte is ignored by servers.
    Shutdown,
    /// COM_PROCESS_KILL: kill the connection with this id.
    ProcessKill(u32),
    ChangeUser(ChangeUser),
    StmtPrepare(&'a [u8]),
    /// The header of COM_STMT_EXECUTE; decode `params` with [`crate::execute::parse_params`]
    /// once the statement (its parameter count and remembered types) is known.
    StmtExecute {
        stmt_id: u32,
        flags: u8,
        iteration_count: u32,
        params: &'a [u8],
    },
    StmtSendLongData {
        stmt_id: u32,
        param: u16,
        data: &'a [u8],
    },
    StmtClose(u32),
    StmtReset(u32),
    /// COM_STMT_BULK_EXECUTE (MariaDB): everything after the command byte, decoded with
    /// [`crate::bulk`] once the server knows the client negotiated it.
    StmtBulkExecute(&'a [u8]),
    /// COM_SET_OPTION: 0 = multi-statements on, 1 = off.
    SetOption(u16),
    StmtFetch {
        stmt_id: u32,
        rows: u32,
    },
    ResetConnection,
    /// COM_REGISTER_SLAVE.
    RegisterSlave(RegisterSlave),
    /// COM_BINLOG_DUMP.
    BinlogDump(BinlogDump),
    /// Any other command byte; answer ERR 1047.
    Unknown(u8),
}

impl<'a> Command<'a> {
    /// Parses a command payload. `client_caps` (from the handshake response) is only used to
    /// decode COM_CHANGE_USER.
    pub fn parse(payload: &'a [u8], client_caps: u32) -> Result<Command<'a>> {
        let mut r = Reader::new(payload);
        let cmd = r.u8("command byte")?;
        let command = match cmd {
            code::QUIT => Command::Quit,
            code::INIT_DB => Command::InitDb(utf8(r.rest(), "COM_INIT_DB schema")?),
            code::QUERY => Command::Query(r.rest()),
            code::FIELD_LIST => Command::FieldList {
                table: utf8(r.nul_bytes_or_rest(), "COM_FIELD_LIST table")?,
                wildcard: r.rest(),
            },
            code::PING => Command::Ping,
            code::STATISTICS => Command::Statistics,
            code::SHUTDOWN => Command::Shutdown,
            code::PROCESS_KILL => Command::ProcessKill(r.u32("COM_PROCESS_KILL connection id")?),
            code::CHANGE_USER => Command::ChangeUser(ChangeUser::parse(r.rest(), client_caps)?),
            code::STMT_PREPARE => Command::StmtPrepare(r.rest()),
            code::STMT_EXECUTE => Command::StmtExecute {
                stmt_id: r.u32("COM_STMT_EXECUTE statement id")?,
                flags: r.u8("COM_STMT_EXECUTE flags")?,
                iteration_count: r.u32("COM_STMT_EXECUTE iteration count")?,
                params: r.rest(),
            },
            code::STMT_SEND_LONG_DATA => Command::StmtSendLongData {
                stmt_id: r.u32("COM_STMT_SEND_LONG_DATA statement id")?,
                param: r.u16("COM_STMT_SEND_LONG_DATA parameter")?,
                data: r.rest(),
            },
            code::STMT_CLOSE => Command::StmtClose(r.u32("COM_STMT_CLOSE statement id")?),
            code::STMT_RESET => Command::StmtReset(r.u32("COM_STMT_RESET statement id")?),
            code::SET_OPTION => Command::SetOption(r.u16("COM_SET_OPTION option")?),
            code::STMT_FETCH => Command::StmtFetch {
                stmt_id: r.u32("COM_STMT_FETCH statement id")?,
                rows: r.u32("COM_STMT_FETCH rows")?,
            },
            code::RESET_CONNECTION => Command::ResetConnection,
            code::STMT_BULK_EXECUTE => Command::StmtBulkExecute(r.rest()),
            code::REGISTER_SLAVE => Command::RegisterSlave(RegisterSlave::parse(r.rest())?),
            code::BINLOG_DUMP => Command::BinlogDump(BinlogDump::parse(r.rest())?),
            other => Command::Unknown(other),
        };
        Ok(command)
    }

    /// The command byte.
    pub fn code(&self) -> u8 {
        match self {
            Command::Quit => code::QUIT,
            Command::InitDb(_) => code::INIT_DB,
            Command::Query(_) => code::QUERY,
            Command::FieldList { .. } => code::FIELD_LIST,
            Command::Ping => code::PING,
            Command::Statistics => code::STATISTICS,
            Command::Shutdown => code::SHUTDOWN,
            Command::ProcessKill(_) => code::PROCESS_KILL,
            Command::ChangeUser(_) => code::CHANGE_USER,
            Command::StmtPrepare(_) => code::STMT_PREPARE,
            Command::StmtExecute { .. } => code::STMT_EXECUTE,
            Command::StmtSendLongData { .. } => code::STMT_SEND_LONG_DATA,
            Command::StmtClose(_) => code::STMT_CLOSE,
            Command::StmtReset(_) => code::STMT_RESET,
            Command::SetOption(_) => code::SET_OPTION,
            Command::StmtFetch { .. } => code::STMT_FETCH,
            Command::ResetConnection => code::RESET_CONNECTION,
            Command::StmtBulkExecute(_) => code::STMT_BULK_EXECUTE,
            Command::RegisterSlave(_) => code::REGISTER_SLAVE,
            Command::BinlogDump(_) => code::BINLOG_DUMP,
            Command::Unknown(c) => *c,
        }
    }

    /// True for the commands the server must not answer.
    pub fn expects_no_reply(&self) -> bool {
        matches!(
            self,
            Command::Quit | Command::StmtClose(_) | Command::StmtSendLongData { .. }
        )
    }

    /// Appends the command payload (client side). `client_caps` matters for ChangeUser only.
    pub fn encode(&self, out: &mut Vec<u8>, client_caps: u32) {
        out.push(self.code());
        match self {
            Command::Quit
            | Command::Ping
            | Command::Statistics
            | Command::Shutdown
            | Command::ResetConnection
            | Command::Unknown(_) => {}
            Command::ProcessKill(id) => put_u32(out, *id),
            Command::InitDb(db) => out.extend_from_slice(db.as_bytes()),
            Command::Query(sql) | Command::StmtPrepare(sql) | Command::StmtBulkExecute(sql) => {
                out.extend_from_slice(sql)
            }
            Command::FieldList { table, wildcard } => {
                put_nul_bytes(out, table.as_bytes());
                out.extend_from_slice(wildcard);
            }
            Command::ChangeUser(cu) => cu.encode(out, client_caps),
            Command::StmtExecute {
                stmt_id,
                flags,
                iteration_count,
                params,
            } => {
                put_u32(out, *stmt_id);
                out.push(*flags);
                put_u32(out, *iteration_count);
                out.extend_from_slice(params);
            }
            Command::StmtSendLongData {
                stmt_id,
                param,
                data,
            } => {
                put_u32(out, *stmt_id);
                put_u16(out, *param);
                out.extend_from_slice(data);
            }
            Command::StmtClose(id) | Command::StmtReset(id) => put_u32(out, *id),
            Command::SetOption(option) => put_u16(out, *option),
            Command::StmtFetch { stmt_id, rows } => {
                put_u32(out, *stmt_id);
                put_u32(out, *rows);
            }
            Command::RegisterSlave(r) => r.encode(out),
            Command::BinlogDump(d) => d.encode(out),
        }
    }
}

/// Appends a COM_QUERY payload.
pub fn encode_query(out: &mut Vec<u8>, sql: &str) {
    Command::Query(sql.as_bytes()).encode(out, 0);
}

/// Appends a COM_STMT_PREPARE payload.
pub fn encode_prepare(out: &mut Vec<u8>, sql: &str) {
    Command::StmtPrepare(sql.as_bytes()).encode(out, 0);
}

/// Appends a COM_STMT_CLOSE payload.
pub fn encode_stmt_close(out: &mut Vec<u8>, stmt_id: u32) {
    Command::StmtClose(stmt_id).encode(out, 0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::SERVER_CAPABILITIES;

    fn parse(payload: &[u8]) -> Result<Command<'_>> {
        Command::parse(payload, SERVER_CAPABILITIES)
    }

    #[test]
    fn parses_captured_commands() {
        assert_eq!(parse(&[0x01]), Ok(Command::Quit));
        assert_eq!(parse(&[0x0e]), Ok(Command::Ping));
        assert_eq!(parse(b"\x02sbprobe"), Ok(Command::InitDb("sbprobe")));
        assert_eq!(parse(b"\x03select 1"), Ok(Command::Query(b"select 1")));
        assert_eq!(parse(b"\x16BEGIN"), Ok(Command::StmtPrepare(b"BEGIN")));
        assert_eq!(
            parse(b"\x04e1\0"),
            Ok(Command::FieldList {
                table: "e1",
                wildcard: b""
            })
        );
        assert_eq!(parse(&[0x19, 10, 0, 0, 0]), Ok(Command::StmtClose(10)));
        assert_eq!(parse(&[0x1a, 1, 0, 0, 0]), Ok(Command::StmtReset(1)));
        assert_eq!(parse(&[0x1f]), Ok(Command::ResetConnection));
        assert_eq!(parse(&[0x09]), Ok(Command::Statistics));
        assert_eq!(parse(&[0x0c, 7, 1, 0, 0]), Ok(Command::ProcessKill(263)));
        assert_eq!(parse(&[0x08]), Ok(Command::Shutdown));
        assert_eq!(parse(&[0x08, 0]), Ok(Command::Shutdown));
        assert!(parse(&[0x0c, 7]).is_err());
        assert_eq!(parse(&[0x1e, 0, 0]), Ok(Command::Unknown(0x1e)));
        assert_eq!(
            parse(&[0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0]),
            Ok(Command::StmtExecute {
                stmt_id: 1,
                flags: 0,
                iteration_count: 1,
                params: &[]
            })
        );
        assert_eq!(
            parse(&[0x18, 2, 0, 0, 0, 1, 0, b'x']),
            Ok(Command::StmtSendLongData {
                stmt_id: 2,
                param: 1,
                data: b"x"
            })
        );
    }

    #[test]
    fn truncated_bodies_are_errors() {
        assert!(parse(&[]).is_err());
        assert!(parse(&[0x19, 1, 0]).is_err());
        assert!(parse(&[0x17, 1, 0, 0, 0, 0, 1]).is_err());
        assert!(parse(&[0x18, 1, 0, 0, 0, 1]).is_err());
        assert!(parse(&[0x1b, 1]).is_err());
        assert!(parse(b"\x02\xff\xfe").is_err());
    }

    #[test]
    fn quiet_commands() {
        assert!(Command::StmtClose(1).expects_no_reply());
        assert!(Command::Quit.expects_no_reply());
        assert!(!Command::Ping.expects_no_reply());
    }

    #[test]
    fn encode_is_the_inverse_of_parse() {
        let commands = [
            Command::Quit,
            Command::InitDb("db"),
            Command::Query(b"SELECT 1"),
            Command::FieldList {
                table: "t",
                wildcard: b"%",
            },
            Command::Ping,
            Command::StmtPrepare(b"SELECT ?"),
            Command::StmtExecute {
                stmt_id: 7,
                flags: 0,
                iteration_count: 1,
                params: &[0, 1, 8, 0, 1, 0, 0, 0, 0, 0, 0, 0],
            },
            Command::StmtSendLongData {
                stmt_id: 7,
                param: 0,
                data: b"chunk",
            },
            Command::StmtClose(7),
            Command::StmtReset(7),
            Command::SetOption(1),
            Command::StmtFetch {
                stmt_id: 7,
                rows: 10,
            },
            Command::ResetConnection,
            Command::RegisterSlave(RegisterSlave {
                server_id: 2,
                host: "replica".into(),
                user: "u".into(),
                password: b"p".to_vec(),
                port: 3306,
                rank: 0,
                master_id: 1,
            }),
            Command::BinlogDump(BinlogDump {
                pos: 4,
                flags: 1,
                server_id: 9,
                file: "binlog.000002".into(),
            }),
            Command::Unknown(0x20),
        ];
        for command in commands {
            let mut out = Vec::new();
            command.encode(&mut out, SERVER_CAPABILITIES);
            assert_eq!(parse(&out), Ok(command));
        }
        let mut out = Vec::new();
        encode_query(&mut out, "BEGIN");
        assert_eq!(out, b"\x03BEGIN");
    }
}
