//! Framing: logical payloads in and out of MySQL packets.
//!
//! Every packet is a 4-byte header and a payload:
//!
//! ```text
//! +----------------+--------+---------------------+
//! | length: u24 LE | seq u8 | payload (length B)  |
//! +----------------+--------+---------------------+
//! ```
//!
//! A payload of `0xFFFFFF` bytes or more is split into `0xFFFFFF`-byte packets followed by
//! one shorter packet, which is empty when the size is an exact multiple. The pieces carry
//! consecutive sequence ids; ids wrap from 255 to 0. The client starts every command at 0
//! and each packet in either direction takes the next id.
//!
//! * [`PacketReader`] buffers incoming bytes (from [`PacketReader::feed`] or read straight
//!   into [`PacketReader::read_buf`]) and yields complete logical payloads, reassembling split
//!   ones, checking sequence ids, and rejecting an over-size payload as soon as the header
//!   that makes it too big arrives ([`ProtocolError::PacketTooLarge`]) — nothing of that
//!   payload needs to be buffered to detect it.
//! * [`PacketWriter`] appends payloads as packets with the next sequence ids to one buffer,
//!   so a whole response goes out in one `write`. Payloads can be encoded in place with
//!   [`PacketWriter::write_with`] (no intermediate copy).

use crate::error::{ProtocolError, Result};

/// Bytes in a packet header.
pub const HEADER_LEN: usize = 4;
/// The largest payload one packet can carry; bigger payloads are split.
pub const MAX_CHUNK: usize = 0xFF_FFFF;

const INITIAL_READ_CAPACITY: usize = 16 * 1024;
/// A reader buffer grown past this is released once it has been drained.
const SHRINK_ABOVE: usize = 1024 * 1024;

/// One complete logical payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    /// Sequence id of the last physical packet (the only one, unless the payload was split).
    pub seq: u8,
    pub payload: &'a [u8],
}

impl Packet<'_> {
    /// The sequence id the reply to this packet must start with.
    pub fn next_seq(&self) -> u8 {
        self.seq.wrapping_add(1)
    }
}

/// Where one complete logical payload lies in the reader's buffer.
struct Frame {
    /// Offset just past the last physical packet.
    end: usize,
    payload_len: usize,
    pieces: usize,
    last_seq: u8,
}

/// Incremental decoder of incoming packets.
///
/// Sequence ids are checked against [`PacketReader::next_seq`], which advances past every
/// payload returned; set it with [`PacketReader::set_next_seq`] (to 0 before reading each
/// command on the server side). After an error the reader keeps returning it: the stream is
/// out of sync and the connection should be closed once the error has been answered.
#[derive(Debug)]
pub struct PacketReader {
    /// Storage; bytes `start..filled` are received but not yet consumed.
    buf: Vec<u8>,
    start: usize,
    filled: usize,
    max_payload: usize,
    next_seq: u8,
    failed: Option<ProtocolError>,
}

impl PacketReader {
    /// A reader that accepts logical payloads of at most `max_payload` bytes
    /// (the server's `max_allowed_packet`).
    pub fn new(max_payload: usize) -> PacketReader {
        PacketReader {
            buf: Vec::new(),
            start: 0,
            filled: 0,
            max_payload,
            next_seq: 0,
            failed: None,
        }
    }

    pub fn max_payload(&self) -> usize {
        self.max_payload
    }

    pub fn set_max_payload(&mut self, max_payload: usize) {
        self.max_payload = max_payload;
    }

    /// The sequence id the next packet must carry.
    pub fn next_seq(&self) -> u8 {
        self.next_seq
    }

    pub fn set_next_seq(&mut self, seq: u8) {
        self.next_seq = seq;
    }

    /// Bytes received but not yet returned as payloads.
    pub fn buffered(&self) -> usize {
        self.filled - self.start
    }

    /// Takes the bytes received but not yet returned as payloads (a connection that stops
    /// being served command by command hands them to whoever reads it next).
    pub fn take_buffered(&mut self) -> Vec<u8> {
        let out = self.buf[self.start..self.filled].to_vec();
        self.start = 0;
        self.filled = 0;
        out
    }

    /// Appends received bytes.
    pub fn feed(&mut self, data: &[u8]) {
        self.read_buf(data.len())[..data.len()].copy_from_slice(data);
        self.filled += data.len();
    }

    /// Free space of at least `min` bytes at the end of the buffer, to read into directly
    /// (e.g. `socket.read(reader.read_buf(8192))`); then report the count with
    /// [`PacketReader::advance`].
    pub fn read_buf(&mut self, min: usize) -> &mut [u8] {
        self.make_room(min);
        &mut self.buf[self.filled..]
    }

    /// Records that `n` bytes were written into the slice from [`PacketReader::read_buf`].
    pub fn advance(&mut self, n: usize) {
        self.filled = (self.filled + n).min(self.buf.len());
    }

    /// The next complete payload, `Ok(None)` if more bytes are needed.
    pub fn next_packet(&mut self) -> Result<Option<Packet<'_>>> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        let frame = match self.scan() {
            Ok(Some(frame)) => frame,
            Ok(None) => return Ok(None),
            Err(err) => {
                self.failed = Some(err.clone());
                return Err(err);
            }
        };
        let payload_start = self.start + HEADER_LEN;
        if frame.pieces > 1 {
            self.join_pieces(payload_start, frame.pieces);
        }
        self.consume(frame.end);
        self.next_seq = frame.last_seq.wrapping_add(1);
        Ok(Some(Packet {
            seq: frame.last_seq,
            payload: &self.buf[payload_start..payload_start + frame.payload_len],
        }))
    }

    /// Walks the packet headers from `start`: checks ids and size, finds where the logical
    /// payload ends. The size check happens as each header arrives.
    fn scan(&self) -> Result<Option<Frame>> {
        let mut pos = self.start;
        let mut total = 0usize;
        let mut seq = self.next_seq;
        let mut pieces = 0;
        loop {
            if self.filled - pos < HEADER_LEN {
                return Ok(None);
            }
            let header = &self.buf[pos..pos + HEADER_LEN];
            let len =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            if header[3] != seq {
                return Err(ProtocolError::OutOfOrder {
                    expected: seq,
                    got: header[3],
                });
            }
            total += len;
            if total > self.max_payload {
                return Err(ProtocolError::PacketTooLarge {
                    size: total,
                    max: self.max_payload,
                    seq,
                });
            }
            if self.filled - pos - HEADER_LEN < len {
                return Ok(None);
            }
            pos += HEADER_LEN + len;
            pieces += 1;
            if len < MAX_CHUNK {
                return Ok(Some(Frame {
                    end: pos,
                    payload_len: total,
                    pieces,
                    last_seq: seq,
                }));
            }
            seq = seq.wrapping_add(1);
        }
    }

    /// Moves the pieces of a split payload together, over the headers between them.
    fn join_pieces(&mut self, payload_start: usize, pieces: usize) {
        let mut write = payload_start + MAX_CHUNK;
        let mut read = write;
        for _ in 1..pieces {
            let len = usize::from(self.buf[read])
                | usize::from(self.buf[read + 1]) << 8
                | usize::from(self.buf[read + 2]) << 16;
            self.buf
                .copy_within(read + HEADER_LEN..read + HEADER_LEN + len, write);
            write += len;
            read += HEADER_LEN + len;
        }
    }

    /// Marks bytes up to `end` as consumed. Data stays in place until the next read.
    fn consume(&mut self, end: usize) {
        self.start = end;
        if self.start == self.filled {
            self.start = 0;
            self.filled = 0;
        }
    }

    /// Ensures `min` free bytes after `filled`, compacting or growing the buffer.
    fn make_room(&mut self, min: usize) {
        if self.start == self.filled {
            self.start = 0;
            self.filled = 0;
            if self.buf.len() > SHRINK_ABOVE && min <= INITIAL_READ_CAPACITY {
                self.buf = Vec::new();
            }
        }
        if self.buf.len() - self.filled >= min {
            return;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.filled, 0);
            self.filled -= self.start;
            self.start = 0;
        }
        let needed = self.filled + min;
        if self.buf.len() < needed {
            // Doubling, but never past what the largest acceptable payload needs (its pieces'
            // headers and one more read): a connection's read buffer stays within
            // max_allowed_packet plus a little.
            let largest = self.max_payload
                + HEADER_LEN * (self.max_payload / MAX_CHUNK + 2)
                + INITIAL_READ_CAPACITY;
            let doubled = (self.buf.len() * 2).min(largest);
            let new_len = needed.max(INITIAL_READ_CAPACITY).max(doubled);
            self.buf.resize(new_len, 0);
        }
    }
}

/// Appends `payload` to `out` as one or more packets starting at sequence id `*seq`,
/// leaving `*seq` at the id the next packet must carry.
pub fn write_packet(out: &mut Vec<u8>, seq: &mut u8, payload: &[u8]) {
    out.reserve(payload.len() + HEADER_LEN * (1 + payload.len() / MAX_CHUNK));
    let mut rest = payload;
    loop {
        let piece = rest.len().min(MAX_CHUNK);
        put_header(out, piece, *seq);
        out.extend_from_slice(&rest[..piece]);
        *seq = seq.wrapping_add(1);
        rest = &rest[piece..];
        if piece < MAX_CHUNK {
            return;
        }
    }
}

fn header(len: usize, seq: u8) -> [u8; HEADER_LEN] {
    [len as u8, (len >> 8) as u8, (len >> 16) as u8, seq]
}

fn put_header(out: &mut Vec<u8>, len: usize, seq: u8) {
    out.extend_from_slice(&header(len, seq));
}

/// Accumulates outgoing packets in one buffer, numbering them.
///
/// The buffer is meant to be written to the socket in one go ([`PacketWriter::bytes`]),
/// then cleared ([`PacketWriter::clear`]) or partly drained ([`PacketWriter::consume`]).
#[derive(Debug, Default)]
pub struct PacketWriter {
    buf: Vec<u8>,
    seq: u8,
    /// Column definitions carry MariaDB's extended type info block.
    extended_metadata: bool,
}

impl PacketWriter {
    pub fn new() -> PacketWriter {
        PacketWriter::default()
    }

    /// The sequence id the next packet will carry.
    pub fn seq(&self) -> u8 {
        self.seq
    }

    pub fn set_seq(&mut self, seq: u8) {
        self.seq = seq;
    }

    /// The client negotiated `MARIADB_CLIENT_EXTENDED_METADATA`: every column definition
    /// written from now on carries the extended type info block.
    pub fn set_extended_metadata(&mut self, on: bool) {
        self.extended_metadata = on;
    }

    pub fn extended_metadata(&self) -> bool {
        self.extended_metadata
    }

    /// Appends `payload` as one or more packets.
    pub fn write_payload(&mut self, payload: &[u8]) {
        write_packet(&mut self.buf, &mut self.seq, payload);
    }

    /// Appends one payload that `encode` writes directly into the output buffer.
    pub fn write_with(&mut self, encode: impl FnOnce(&mut Vec<u8>)) {
        let header_at = self.buf.len();
        self.buf.extend_from_slice(&[0; HEADER_LEN]);
        encode(&mut self.buf);
        self.finish_packet(header_at);
    }

    /// Like [`PacketWriter::write_with`] for a fallible encoder: on error nothing is
    /// appended and the sequence id does not move.
    pub fn try_write_with<E>(
        &mut self,
        encode: impl FnOnce(&mut Vec<u8>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let header_at = self.buf.len();
        self.buf.extend_from_slice(&[0; HEADER_LEN]);
        if let Err(err) = encode(&mut self.buf) {
            self.buf.truncate(header_at);
            return Err(err);
        }
        self.finish_packet(header_at);
        Ok(())
    }

    /// Fills in the header reserved at `header_at`, splitting the payload if it is too big.
    fn finish_packet(&mut self, header_at: usize) {
        let payload_len = self.buf.len() - header_at - HEADER_LEN;
        if payload_len < MAX_CHUNK {
            self.buf[header_at..header_at + HEADER_LEN]
                .copy_from_slice(&header(payload_len, self.seq));
            self.seq = self.seq.wrapping_add(1);
            return;
        }
        let payload = self.buf.split_off(header_at + HEADER_LEN);
        self.buf.truncate(header_at);
        self.write_payload(&payload);
    }

    /// The packets written so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Drops the first `n` bytes (those already sent).
    pub fn consume(&mut self, n: usize) {
        self.buf.drain(..n.min(self.buf.len()));
    }

    /// Drops everything written, keeping the allocation; the sequence id is unchanged.
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// Takes the written bytes out, leaving the writer empty.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// Moves the written bytes to the end of `out`, leaving the writer empty: without a copy
    /// when `out` is empty (the buffers are swapped, so both keep their allocations), and
    /// without keeping more than [`SHRINK_ABOVE`] bytes of capacity after a large response.
    pub fn drain_into(&mut self, out: &mut Vec<u8>) {
        if out.is_empty() {
            std::mem::swap(out, &mut self.buf);
        } else {
            out.extend_from_slice(&self.buf);
        }
        self.buf.clear();
        if self.buf.capacity() > SHRINK_ABOVE {
            self.buf = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(payload: &[u8], seq: u8) -> Vec<u8> {
        let mut out = Vec::new();
        let mut s = seq;
        write_packet(&mut out, &mut s, payload);
        out
    }

    #[test]
    fn small_packet_layout() {
        assert_eq!(framed(&[0x0e], 0), [1, 0, 0, 0, 0x0e]);
        assert_eq!(framed(&[], 7), [0, 0, 0, 7]);
    }

    #[test]
    fn take_buffered_returns_what_follows_the_last_packet() {
        let mut bytes = framed(&[7; 32], 1);
        bytes.extend_from_slice(b"\x16\x03\x01 client hello");
        let mut reader = PacketReader::new(1024);
        reader.set_next_seq(1);
        reader.feed(&bytes);
        assert_eq!(reader.next_packet().unwrap().unwrap().payload, &[7; 32]);
        assert_eq!(reader.take_buffered(), b"\x16\x03\x01 client hello");
        assert_eq!(reader.buffered(), 0);
        assert_eq!(reader.next_seq(), 2, "the sequence goes on");
        reader.feed(&framed(b"x", 2));
        assert_eq!(reader.next_packet().unwrap().unwrap().payload, b"x");
        assert_eq!(reader.take_buffered(), b"");
    }

    #[test]
    fn reads_back_to_back_packets_fed_byte_by_byte() {
        let mut bytes = framed(b"\x03select 1", 0);
        bytes.extend(framed(b"\x0e", 1));
        let mut reader = PacketReader::new(1024);
        let mut got = Vec::new();
        for b in bytes {
            reader.feed(&[b]);
            while let Some(p) = reader.next_packet().unwrap() {
                got.push((p.seq, p.payload.to_vec()));
            }
        }
        assert_eq!(
            got,
            vec![(0, b"\x03select 1".to_vec()), (1, b"\x0e".to_vec())]
        );
        assert_eq!(reader.next_seq(), 2);
        assert_eq!(reader.buffered(), 0);
    }

    #[test]
    fn splits_and_reassembles_exact_multiple() {
        let payload: Vec<u8> = (0..MAX_CHUNK).map(|i| (i % 251) as u8).collect();
        let bytes = framed(&payload, 255);
        // One full piece, then an empty trailing packet, ids wrapping 255 -> 0.
        assert_eq!(bytes.len(), payload.len() + 2 * HEADER_LEN);
        assert_eq!(&bytes[..4], &[0xFF, 0xFF, 0xFF, 255]);
        assert_eq!(&bytes[bytes.len() - 4..], &[0, 0, 0, 0]);
        let mut reader = PacketReader::new(32 * 1024 * 1024);
        reader.set_next_seq(255);
        reader.feed(&bytes);
        let packet = reader.next_packet().unwrap().unwrap();
        assert_eq!(packet.seq, 0);
        assert!(packet.payload == payload.as_slice());
        assert_eq!(reader.next_seq(), 1);
    }

    #[test]
    fn splits_and_reassembles_with_tail() {
        let payload: Vec<u8> = (0..MAX_CHUNK + 10).map(|i| (i % 253) as u8).collect();
        let mut writer = PacketWriter::new();
        writer.write_with(|out| out.extend_from_slice(&payload));
        writer.write_payload(b"next");
        assert_eq!(writer.seq(), 3);
        let mut reader = PacketReader::new(MAX_CHUNK + 10);
        reader.feed(writer.bytes());
        let first = reader.next_packet().unwrap().unwrap();
        assert_eq!(first.seq, 1);
        assert!(first.payload == payload.as_slice());
        let second = reader.next_packet().unwrap().unwrap();
        assert_eq!((second.seq, second.payload), (2, &b"next"[..]));
    }

    #[test]
    fn oversize_detected_from_header_alone() {
        let mut reader = PacketReader::new(100);
        reader.feed(&[101, 0, 0, 0]);
        assert_eq!(
            reader.next_packet(),
            Err(ProtocolError::PacketTooLarge {
                size: 101,
                max: 100,
                seq: 0
            })
        );
        // Sticky: the stream is out of sync.
        reader.feed(&[0; 200]);
        assert!(reader.next_packet().is_err());
    }

    #[test]
    fn oversize_across_pieces_detected_at_second_header() {
        let mut reader = PacketReader::new(MAX_CHUNK + 5);
        reader.feed(&[0xFF, 0xFF, 0xFF, 0]);
        reader.feed(&vec![0u8; MAX_CHUNK]);
        assert_eq!(reader.next_packet(), Ok(None));
        reader.feed(&[6, 0, 0, 1]);
        assert!(matches!(
            reader.next_packet(),
            Err(ProtocolError::PacketTooLarge { seq: 1, .. })
        ));
    }

    #[test]
    fn exact_max_is_accepted() {
        let mut reader = PacketReader::new(3);
        reader.feed(&framed(b"abc", 0));
        assert_eq!(reader.next_packet().unwrap().unwrap().payload, b"abc");
    }

    #[test]
    fn wrong_sequence_is_out_of_order() {
        let mut reader = PacketReader::new(100);
        reader.feed(&framed(b"x", 3));
        assert_eq!(
            reader.next_packet(),
            Err(ProtocolError::OutOfOrder {
                expected: 0,
                got: 3
            })
        );
    }

    #[test]
    fn the_buffer_grows_to_the_largest_payload_not_twice_it() {
        let max = 3 * 1024 * 1024 + 17;
        let mut reader = PacketReader::new(max);
        let bytes = framed(&vec![1; max], 0);
        for piece in bytes.chunks(16 * 1024) {
            reader.feed(piece);
        }
        assert_eq!(reader.next_packet().unwrap().unwrap().payload.len(), max);
        assert!(reader.buf.len() <= max + 3 * HEADER_LEN + INITIAL_READ_CAPACITY);
    }

    #[test]
    fn read_buf_and_advance() {
        let bytes = framed(b"hello", 0);
        let mut reader = PacketReader::new(100);
        let buf = reader.read_buf(bytes.len());
        buf[..bytes.len()].copy_from_slice(&bytes);
        reader.advance(bytes.len());
        assert_eq!(reader.next_packet().unwrap().unwrap().payload, b"hello");
    }

    #[test]
    fn failed_encoder_leaves_nothing() {
        let mut writer = PacketWriter::new();
        writer.write_payload(b"a");
        let res: std::result::Result<(), ()> = writer.try_write_with(|out| {
            out.extend_from_slice(b"partial");
            Err(())
        });
        assert!(res.is_err());
        assert_eq!(writer.bytes(), &[1, 0, 0, 0, b'a']);
        assert_eq!(writer.seq(), 1);
    }

    #[test]
    fn drain_into_moves_or_appends_and_does_not_keep_a_large_buffer() {
        let mut writer = PacketWriter::new();
        writer.write_payload(b"ab");
        let mut out = Vec::new();
        writer.drain_into(&mut out);
        assert_eq!(out, [2, 0, 0, 0, b'a', b'b']);
        assert!(writer.is_empty());
        writer.write_payload(b"c");
        writer.drain_into(&mut out);
        assert_eq!(out, [2, 0, 0, 0, b'a', b'b', 1, 0, 0, 1, b'c']);
        writer.write_payload(&vec![7; 2 * SHRINK_ABOVE]);
        writer.drain_into(&mut out);
        assert_eq!(out.len(), 11 + 4 + 2 * SHRINK_ABOVE);
        assert!(writer.buf.capacity() <= SHRINK_ABOVE);
    }

    #[test]
    fn writer_consume_and_take() {
        let mut writer = PacketWriter::new();
        writer.write_payload(b"ab");
        writer.consume(2);
        assert_eq!(writer.bytes(), &[0, 0, b'a', b'b']);
        assert_eq!(writer.take(), vec![0, 0, b'a', b'b']);
        assert!(writer.is_empty());
    }
}
