//! The replication commands and packets, as MariaDB 10.11 speaks them (captured from a real
//! primary and replica, `mariadb-binlog --read-from-remote-server` and python-mysql-replication).
//!
//! ```text
//! COM_REGISTER_SLAVE  15 | server_id u32 | host (u8 len + bytes) | user (u8 len + bytes)
//!                     | password (u8 len + bytes) | port u16 | rank u32 | master_id u32  → OK
//! COM_BINLOG_DUMP     12 | pos u32 | flags u16 | server_id u32 | file name (rest)
//!                     flags: 1 = BINLOG_DUMP_NON_BLOCK (EOF at the end instead of waiting),
//!                            2 = BINLOG_SEND_ANNOTATE_ROWS_EVENT
//!                     answered by a stream of packets `00 | event` (ERR to stop, EOF when
//!                     non-blocking and done); an empty file name with `@slave_connect_state`
//!                     set starts at a GTID position instead
//! COM_BINLOG_DUMP_GTID 1e (MySQL's GTID dump): MariaDB answers ERR 1047, as for any unknown
//!                     command
//! ```
//!
//! Semi-synchronous replication (the replica set `@rpl_semi_sync_slave = 1`): every stream
//! packet is `00 | ef | ack-flag u8 | event`; when the flag is 1 the replica answers, on the
//! same connection, with the packet `ef | pos u64 | file name` (sequence id 0) once it has the
//! event, and the primary's next stream packet has sequence id 1 again.

use crate::codec::{utf8, Reader};
use crate::error::Result;

/// COM_BINLOG_DUMP flags.
pub mod dump_flags {
    /// Send an EOF packet at the end of the binlog instead of waiting for more.
    pub const NON_BLOCK: u16 = 0x01;
    /// Send Annotate_rows events.
    pub const SEND_ANNOTATE_ROWS: u16 = 0x02;
}

/// The first byte of the semi-sync header and of an acknowledgement.
pub const SEMI_SYNC_MAGIC: u8 = 0xef;

/// COM_REGISTER_SLAVE's body: what SHOW SLAVE HOSTS lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterSlave {
    pub server_id: u32,
    pub host: String,
    pub user: String,
    pub password: Vec<u8>,
    pub port: u16,
    pub rank: u32,
    pub master_id: u32,
}

impl RegisterSlave {
    /// Parses the body (after the command byte). Trailing fields a client leaves out read as
    /// 0, as MariaDB reads them.
    pub fn parse(body: &[u8]) -> Result<RegisterSlave> {
        let mut r = Reader::new(body);
        let server_id = r.u32("COM_REGISTER_SLAVE server id")?;
        let mut string = |what: &'static str| -> Result<Vec<u8>> {
            if r.remaining() == 0 {
                return Ok(Vec::new());
            }
            let n = r.u8(what)? as usize;
            Ok(r.bytes(n, what)?.to_vec())
        };
        let host = string("COM_REGISTER_SLAVE host")?;
        let user = string("COM_REGISTER_SLAVE user")?;
        let password = string("COM_REGISTER_SLAVE password")?;
        let port = if r.remaining() >= 2 {
            r.u16("port")?
        } else {
            0
        };
        let rank = if r.remaining() >= 4 {
            r.u32("rank")?
        } else {
            0
        };
        let master_id = if r.remaining() >= 4 {
            r.u32("master id")?
        } else {
            0
        };
        Ok(RegisterSlave {
            server_id,
            host: String::from_utf8_lossy(&host).into_owned(),
            user: String::from_utf8_lossy(&user).into_owned(),
            password,
            port,
            rank,
            master_id,
        })
    }

    /// Appends the body (client side).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.server_id.to_le_bytes());
        for s in [
            self.host.as_bytes(),
            self.user.as_bytes(),
            &self.password[..],
        ] {
            let s = &s[..s.len().min(255)];
            out.push(s.len() as u8);
            out.extend_from_slice(s);
        }
        out.extend_from_slice(&self.port.to_le_bytes());
        out.extend_from_slice(&self.rank.to_le_bytes());
        out.extend_from_slice(&self.master_id.to_le_bytes());
    }
}

/// COM_BINLOG_DUMP's body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinlogDump {
    pub pos: u32,
    pub flags: u16,
    pub server_id: u32,
    /// The file to start in; empty: the first file, or the GTID position.
    pub file: String,
}

impl BinlogDump {
    /// Parses the body. The file name ends at a NUL byte if there is one, as MariaDB reads
    /// it (python-mysql-replication sends four NUL bytes for "no file").
    pub fn parse(body: &[u8]) -> Result<BinlogDump> {
        let mut r = Reader::new(body);
        let pos = r.u32("COM_BINLOG_DUMP position")?;
        let flags = r.u16("COM_BINLOG_DUMP flags")?;
        let server_id = r.u32("COM_BINLOG_DUMP server id")?;
        let rest = r.rest();
        let name = &rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())];
        Ok(BinlogDump {
            pos,
            flags,
            server_id,
            file: utf8(name, "COM_BINLOG_DUMP file name")?.to_string(),
        })
    }

    /// Appends the body (client side).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.pos.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&self.server_id.to_le_bytes());
        out.extend_from_slice(self.file.as_bytes());
    }
}

/// A semi-sync acknowledgement: the replica has everything up to `pos` of `file`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemiSyncAck {
    pub pos: u64,
    pub file: String,
}

impl SemiSyncAck {
    /// Parses an acknowledgement packet's payload; None if it is not one.
    pub fn parse(payload: &[u8]) -> Option<SemiSyncAck> {
        let (&magic, rest) = payload.split_first()?;
        if magic != SEMI_SYNC_MAGIC || rest.len() < 8 {
            return None;
        }
        let pos = u64::from_le_bytes(rest[..8].try_into().ok()?);
        let file = std::str::from_utf8(&rest[8..]).ok()?.to_string();
        Some(SemiSyncAck { pos, file })
    }

    /// The payload (replica side).
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(SEMI_SYNC_MAGIC);
        out.extend_from_slice(&self.pos.to_le_bytes());
        out.extend_from_slice(self.file.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Captured from a MariaDB 10.11.19 replica (server id 2, port 3570) and primary.
    #[test]
    fn parses_captured_packets() {
        let reg = unhex("02000000000000f20d0000000000000000");
        assert_eq!(
            RegisterSlave::parse(&reg).unwrap(),
            RegisterSlave {
                server_id: 2,
                host: String::new(),
                user: String::new(),
                password: Vec::new(),
                port: 3570,
                rank: 0,
                master_id: 0,
            }
        );
        let mut back = Vec::new();
        RegisterSlave::parse(&reg).unwrap().encode(&mut back);
        assert_eq!(back, reg);
        // mariadb-binlog --read-from-remote-server binlog.000001: flags NON_BLOCK|ANNOTATE.
        let dump = unhex("04000000030000000000");
        let mut dump = dump;
        dump.extend_from_slice(b"binlog.000001");
        assert_eq!(
            BinlogDump::parse(&dump).unwrap(),
            BinlogDump {
                pos: 4,
                flags: dump_flags::NON_BLOCK | dump_flags::SEND_ANNOTATE_ROWS,
                server_id: 0,
                file: "binlog.000001".into(),
            }
        );
        let ack = unhex("eff30300000000000062696e6c6f672e303030303034");
        assert_eq!(
            SemiSyncAck::parse(&ack),
            Some(SemiSyncAck {
                pos: 0x3f3,
                file: "binlog.000004".into()
            })
        );
        let mut back = Vec::new();
        SemiSyncAck::parse(&ack).unwrap().encode(&mut back);
        assert_eq!(back, ack);
        // python-mysql-replication in GTID mode: no file, as four NUL bytes.
        let dump = unhex("040000000000850300000000000000");
        assert_eq!(BinlogDump::parse(&dump).unwrap().file, "");
        assert_eq!(SemiSyncAck::parse(b"\x03SELECT 1"), None);
        assert_eq!(SemiSyncAck::parse(&[0xef, 1, 2]), None);
        assert!(BinlogDump::parse(&[4, 0, 0]).is_err());
        assert!(RegisterSlave::parse(&[1, 0]).is_err());
        assert!(
            RegisterSlave::parse(&[1, 0, 0, 0, 9, b'x']).is_err(),
            "host cut short"
        );
    }
}
