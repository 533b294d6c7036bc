//! The packets of a dump: `00 | [ef ack] | event`, EOF, ERR, and the events a dump makes up.
//!
//! Sequence ids continue from the command's (the first packet is 1) and wrap; after a
//! packet that asks for a semi-sync acknowledgement the next one is 1 again, because the
//! replica's acknowledgement (sequence id 0) restarts its count — as MariaDB's primary does.
//! Payloads of 16 MiB and more are split into packets of `0xffffff` bytes
//! ([`cohort_protocol::write_packet`]).
//!
//! Packets are gathered in a buffer and written when it holds [`FLUSH_AT`] bytes, before the
//! dump waits, after an acknowledgement request, and at the end.
//!
//! Events read from a file are sent as written. Events the dump makes up — the fake Rotate
//! and Gtid_list, heartbeats — carry a CRC32 as the file being sent does; before the first
//! Format_description is sent (the first fake Rotate), as the replica declared
//! (`@master_binlog_checksum`: `mariadb-binlog` says `NONE` and gets that one without).

use super::socket::DumpSocket;
use cohort_binlog::{synthetic_event, Event, ServerId, LOG_EVENT_ARTIFICIAL_F};
use cohort_protocol::replication::SEMI_SYNC_MAGIC;
use cohort_protocol::{write_packet, ErrorCode};
use std::io;

/// Write out once this many bytes of packets are gathered.
pub const FLUSH_AT: usize = 64 << 10;

/// A dump's outgoing packets.
pub struct Outbox {
    out: Vec<u8>,
    payload: Vec<u8>,
    seq: u8,
    /// Every event packet carries the semi-sync header.
    semi_sync: bool,
    /// Made-up events carry a CRC32.
    checksum: bool,
    server_id: ServerId,
}

impl Outbox {
    pub fn new(semi_sync: bool, checksum: bool, server_id: u32) -> Outbox {
        Outbox {
            out: Vec::with_capacity(FLUSH_AT * 2),
            payload: Vec::new(),
            seq: 1,
            semi_sync,
            checksum,
            server_id: ServerId(server_id),
        }
    }

    /// One event as read from a file; `ack` asks the replica to acknowledge it (semi-sync).
    pub fn event(&mut self, sock: &mut dyn DumpSocket, event: &[u8], ack: bool) -> io::Result<()> {
        self.payload.clear();
        self.payload.push(0);
        if self.semi_sync {
            self.payload.push(SEMI_SYNC_MAGIC);
            self.payload.push(ack as u8);
        }
        self.payload.extend_from_slice(event);
        write_packet(&mut self.out, &mut self.seq, &self.payload);
        if self.payload.capacity() > 4 * FLUSH_AT {
            self.payload = Vec::new();
        }
        if ack && self.semi_sync {
            self.seq = 1;
            return self.flush(sock);
        }
        if self.out.len() >= FLUSH_AT {
            return self.flush(sock);
        }
        Ok(())
    }

    /// An event the dump makes up, ending at `next_pos` (0: it moves nobody's position).
    pub fn synthetic(
        &mut self,
        sock: &mut dyn DumpSocket,
        event: &Event,
        timestamp: u32,
        next_pos: u64,
        artificial: bool,
    ) -> io::Result<()> {
        let flags = if artificial {
            LOG_EVENT_ARTIFICIAL_F
        } else {
            0
        };
        let next = u32::try_from(next_pos).unwrap_or(u32::MAX);
        let bytes = synthetic_event(event, self.server_id, timestamp, next, flags, self.checksum)
            .map_err(|e| io::Error::other(e.to_string()))?;
        self.event(sock, &bytes, false)
    }

    /// Made-up events follow the checksum algorithm of the file being sent once its
    /// Format_description went out (MariaDB: only the first fake Rotate follows what the
    /// replica declared).
    pub fn set_checksum(&mut self, on: bool) {
        self.checksum = on;
    }

    /// EOF (non-blocking dump at the end of the binlog).
    pub fn eof(&mut self, sock: &mut dyn DumpSocket) -> io::Result<()> {
        write_packet(&mut self.out, &mut self.seq, &[0xfe, 0, 0, 2, 0]);
        self.flush(sock)
    }

    /// ERR: the dump ends.
    pub fn error(
        &mut self,
        sock: &mut dyn DumpSocket,
        code: ErrorCode,
        msg: &str,
    ) -> io::Result<()> {
        let mut p = vec![0xff];
        p.extend_from_slice(&code.number().to_le_bytes());
        p.push(b'#');
        p.extend_from_slice(code.sqlstate().as_bytes());
        p.extend_from_slice(&msg.as_bytes()[..msg.len().min(512)]);
        write_packet(&mut self.out, &mut self.seq, &p);
        self.flush(sock)
    }

    /// Write what is gathered.
    pub fn flush(&mut self, sock: &mut dyn DumpSocket) -> io::Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let r = sock.write_all(&self.out);
        self.out.clear();
        if self.out.capacity() > 4 * FLUSH_AT {
            self.out = Vec::with_capacity(FLUSH_AT * 2);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// A socket that keeps what is written.
    #[derive(Default)]
    struct Kept(Vec<u8>);

    impl DumpSocket for Kept {
        fn write_all(&mut self, b: &[u8]) -> io::Result<()> {
            self.0.extend_from_slice(b);
            Ok(())
        }
        fn reader(&self) -> io::Result<Box<dyn Read + Send>> {
            Ok(Box::new(io::empty()))
        }
        fn shutdown(&self) {}
    }

    /// The packet headers (length, sequence id) and the start of each payload.
    fn packets(b: &[u8]) -> Vec<(usize, u8, Vec<u8>)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i + 4 <= b.len() {
            let n = u32::from_le_bytes([b[i], b[i + 1], b[i + 2], 0]) as usize;
            out.push((n, b[i + 3], b[i + 4..i + 4 + n.min(3)].to_vec()));
            i += 4 + n;
        }
        out
    }

    #[test]
    fn semi_sync_header_and_sequence_restart_after_an_ack_request() {
        let mut s = Kept::default();
        let mut o = Outbox::new(true, true, 1);
        o.event(&mut s, b"e1", false).unwrap();
        o.event(&mut s, b"e2", true).unwrap();
        o.event(&mut s, b"e3", false).unwrap();
        o.flush(&mut s).unwrap();
        assert_eq!(
            packets(&s.0),
            vec![
                (5, 1, vec![0, 0xef, 0]),
                (5, 2, vec![0, 0xef, 1]),
                (5, 1, vec![0, 0xef, 0]),
            ]
        );
    }

    #[test]
    fn a_16_mib_event_is_split() {
        let mut s = Kept::default();
        let mut o = Outbox::new(false, true, 1);
        let big = vec![7u8; 0xffffff + 10];
        o.event(&mut s, &big, false).unwrap();
        o.eof(&mut s).unwrap();
        let p = packets(&s.0);
        assert_eq!(p.len(), 3);
        assert_eq!((p[0].0, p[0].1), (0xffffff, 1));
        assert_eq!(
            (p[1].0, p[1].1),
            (11, 2),
            "1 byte of header + 10 bytes left"
        );
        assert_eq!((p[2].0, p[2].1, &p[2].2[..]), (5, 3, &[0xfe, 0, 0][..]));
    }

    #[test]
    fn made_up_events_follow_the_replicas_checksum_setting() {
        let rotate = Event::Rotate(cohort_binlog::RotateEvent {
            position: cohort_binlog::BinlogPos(4),
            next_file: "binlog.000001".into(),
        });
        for (checksum, size) in [(true, 44), (false, 40)] {
            let mut s = Kept::default();
            let mut o = Outbox::new(false, checksum, 1);
            o.synthetic(&mut s, &rotate, 0, 0, true).unwrap();
            o.flush(&mut s).unwrap();
            // MariaDB's fake Rotate: 44 bytes with CRC32 (a replica), 40 without
            // (mariadb-binlog), flags LOG_EVENT_ARTIFICIAL_F, next position 0.
            let ev = &s.0[5..];
            assert_eq!(ev.len(), size);
            assert_eq!(
                u32::from_le_bytes(ev[9..13].try_into().unwrap()),
                size as u32
            );
            assert_eq!(&ev[13..19], &[0, 0, 0, 0, 0x20, 0]);
        }
    }
}
