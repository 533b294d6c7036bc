//! Reading a binlog file image back into events.

use std::collections::HashMap;

use crate::error::DecodeError;
use crate::events::{
    decode_body, event_crc32, BodyError, Event, EventHeader, EventType, TableMap,
    CHECKSUM_ALG_CRC32, CHECKSUM_ALG_OFF, CHECKSUM_LEN, HEADER_LEN, MAGIC,
};
use crate::{BinlogPos, TableId};

/// One event read from a file.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedEvent {
    /// File offset of the event's first byte.
    pub pos: BinlogPos,
    /// Its common header.
    pub header: EventHeader,
    /// Its decoded body.
    pub event: Event,
}

impl DecodedEvent {
    /// File offset just past the event.
    pub fn end(&self) -> BinlogPos {
        BinlogPos(self.pos.0 + self.header.event_size as u64)
    }
}

/// Iterates over the events of a file image (magic first), verifying each event's framing
/// and CRC32 and decoding its body. Rows events are decoded with the latest Table_map of
/// their table id.
///
/// Iteration ends at the end of the data or at the first error, which is yielded once;
/// [`BinlogReader::valid_end`] then gives the end of the last good event, where a damaged
/// (torn or corrupt) tail should be cut.
#[derive(Debug)]
pub struct BinlogReader<'a> {
    data: &'a [u8],
    pos: usize,
    decoder: EventDecoder,
    error: Option<DecodeError>,
}

impl<'a> BinlogReader<'a> {
    /// Checks the magic; the first event read is the Format_description at offset 4.
    ///
    /// A file shorter than the magic but matching its prefix (torn at creation) gives
    /// [`DecodeError::Truncated`] at offset 0.
    pub fn new(data: &'a [u8]) -> Result<BinlogReader<'a>, DecodeError> {
        if data.len() < MAGIC.len() {
            if MAGIC.starts_with(data) {
                return Err(DecodeError::Truncated {
                    pos: BinlogPos(0),
                    needed: MAGIC.len() as u64,
                    available: data.len() as u64,
                });
            }
            return Err(DecodeError::BadMagic);
        }
        if data[..4] != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        Ok(BinlogReader {
            data,
            pos: MAGIC.len(),
            decoder: EventDecoder::new(),
            error: None,
        })
    }

    /// Offset of the next event to read.
    pub fn position(&self) -> BinlogPos {
        BinlogPos(self.pos as u64)
    }

    /// End of the last event that was read successfully (the magic's end before any): the
    /// length to cut the file to after an error.
    pub fn valid_end(&self) -> BinlogPos {
        self.position()
    }

    /// The error that ended iteration, if any.
    pub fn error(&self) -> Option<&DecodeError> {
        self.error.as_ref()
    }

    /// Whether events carry checksums (known once the Format_description has been read).
    pub fn checksums(&self) -> Option<bool> {
        self.decoder.checksums()
    }

    /// The Table_map last seen for `table_id`.
    pub fn table(&self, table_id: TableId) -> Option<&TableMap> {
        self.decoder.table(table_id)
    }

    /// Continues reading at `pos`, which must be an event boundary (e.g. a transaction start
    /// remembered from an earlier scan). Reads the Format_description first if it has not
    /// been read yet.
    pub fn seek(&mut self, pos: BinlogPos) -> Result<(), DecodeError> {
        if self.decoder.checksums().is_none() {
            if let Some(Err(e)) = self.next_event() {
                return Err(e);
            }
        }
        self.pos = usize::try_from(pos.0)
            .unwrap_or(usize::MAX)
            .min(self.data.len());
        Ok(())
    }

    /// Reads the next event; `None` at the end of the data or after an error.
    pub fn next_event(&mut self) -> Option<Result<DecodedEvent, DecodeError>> {
        if self.error.is_some() || self.pos >= self.data.len() {
            return None;
        }
        match self.read_one() {
            Ok(ev) => Some(Ok(ev)),
            Err(e) => {
                self.error = Some(e.clone());
                Some(Err(e))
            }
        }
    }

    fn read_one(&mut self) -> Result<DecodedEvent, DecodeError> {
        let pos = BinlogPos(self.pos as u64);
        let ev = self.decoder.decode(pos, &self.data[self.pos..])?;
        self.pos += ev.header.event_size as usize;
        Ok(ev)
    }
}

/// Verifies and decodes events one at a time, from whatever bytes a reader holds: the event
/// at `pos` is the start of `data` (which may extend past it). It remembers what later events
/// need: whether events carry checksums (from the Format_description, which must come first)
/// and the Table_map of each table id.
///
/// [`BinlogReader`] uses it over a whole file image; a streaming reader that holds a window
/// of a file uses [`EventDecoder::frame`] to learn how much of the file one event needs.
#[derive(Debug, Default, Clone)]
pub struct EventDecoder {
    /// Whether events carry a CRC32; unknown until the Format_description is read.
    checksums: Option<bool>,
    tables: HashMap<TableId, TableMap>,
    /// Events taken out of their file ([`EventDecoder::detached`]).
    detached: bool,
}

impl EventDecoder {
    pub fn new() -> EventDecoder {
        EventDecoder::default()
    }

    /// A decoder for events after the Format_description, which said whether they carry
    /// checksums (for readers that start in the middle of a file they already checked).
    pub fn with_checksums(checksums: bool) -> EventDecoder {
        EventDecoder {
            checksums: Some(checksums),
            ..EventDecoder::default()
        }
    }

    /// A decoder for events taken out of their file, as the `BINLOG '…'` statement of
    /// `mariadb-binlog` output carries them: their `next_pos` says nothing about where they
    /// are now, so it is not checked, and, as MariaDB's BINLOG statement, their checksums are
    /// not verified (the checksum bytes are still expected where the Format_description says).
    pub fn detached() -> EventDecoder {
        EventDecoder {
            detached: true,
            ..EventDecoder::default()
        }
    }

    /// Forget the Table_maps (a replica does at the end of each statement).
    pub fn clear_tables(&mut self) {
        self.tables.clear();
    }

    /// Whether events carry checksums (known once the Format_description has been decoded).
    pub fn checksums(&self) -> Option<bool> {
        self.checksums
    }

    /// The Table_map last decoded for `table_id`.
    pub fn table(&self, table_id: TableId) -> Option<&TableMap> {
        self.tables.get(&table_id)
    }

    /// Check the framing of the event at the start of `data` (offset `pos` in its file):
    /// header, size, next position and checksum. Returns its header and size;
    /// [`DecodeError::Truncated`] (with the size needed) if `data` holds less than the event.
    pub fn frame(&self, pos: BinlogPos, data: &[u8]) -> Result<(EventHeader, usize), DecodeError> {
        let avail = data.len();
        if avail < HEADER_LEN {
            return Err(DecodeError::Truncated {
                pos,
                needed: HEADER_LEN as u64,
                available: avail as u64,
            });
        }
        let header = EventHeader::parse(data[..HEADER_LEN].try_into().expect("19 bytes"));
        let is_fde = header.event_type == EventType::FORMAT_DESCRIPTION;
        if self.checksums.is_none() && !is_fde {
            return Err(DecodeError::BadFormatDescription {
                pos,
                detail: format!("first event is {:?}", header.event_type),
            });
        }
        let has_crc = is_fde || self.checksums == Some(true);
        let size = header.event_size as usize;
        let min = HEADER_LEN + if has_crc { CHECKSUM_LEN } else { 0 };
        if size < min {
            return Err(DecodeError::BadHeader {
                pos,
                detail: format!("event size {size} < {min}"),
            });
        }
        // The size is checked against what is there before `next_pos` is: a caller that can
        // read more learns how much (MariaDB's order: too small, too large, truncated).
        if size > avail {
            return Err(DecodeError::Truncated {
                pos,
                needed: size as u64,
                available: avail as u64,
            });
        }
        if !self.detached && header.next_pos as u64 != pos.0 + size as u64 {
            return Err(DecodeError::BadHeader {
                pos,
                detail: format!(
                    "next_pos {} is not offset + size {}",
                    header.next_pos,
                    pos.0 + size as u64
                ),
            });
        }
        let bytes = &data[..size];
        let body_end = if has_crc { size - CHECKSUM_LEN } else { size };
        let verify = if self.detached {
            if is_fde && !matches!(bytes[body_end - 1], CHECKSUM_ALG_CRC32 | CHECKSUM_ALG_OFF) {
                return Err(DecodeError::BadFormatDescription {
                    pos,
                    detail: format!("unknown checksum algorithm {}", bytes[body_end - 1]),
                });
            }
            false
        } else if is_fde {
            // The FDE always has a checksum field; it is only meaningful with CRC32 on.
            match bytes[body_end - 1] {
                CHECKSUM_ALG_CRC32 => true,
                CHECKSUM_ALG_OFF => false,
                alg => {
                    return Err(DecodeError::BadFormatDescription {
                        pos,
                        detail: format!("unknown checksum algorithm {alg}"),
                    })
                }
            }
        } else {
            has_crc
        };
        let stored = || u32::from_le_bytes(bytes[body_end..size].try_into().expect("4 bytes"));
        if verify {
            let computed = event_crc32(&bytes[..body_end]);
            if stored() != computed {
                return Err(DecodeError::BadChecksum {
                    pos,
                    stored: stored(),
                    computed,
                });
            }
        } else if is_fde && !self.detached {
            // "Checksums off" could be a CRC32 FDE whose algorithm byte was damaged: its
            // checksum field then matches the body with the byte restored.
            let mut restored = bytes[..body_end].to_vec();
            restored[body_end - 1] = CHECKSUM_ALG_CRC32;
            if stored() == event_crc32(&restored) {
                let computed = event_crc32(&bytes[..body_end]);
                return Err(DecodeError::BadChecksum {
                    pos,
                    stored: stored(),
                    computed,
                });
            }
        }
        Ok((header, size))
    }

    /// Verify ([`EventDecoder::frame`]) and decode the event at the start of `data`. Rows
    /// events are decoded with the latest Table_map of their table id.
    pub fn decode(&mut self, pos: BinlogPos, data: &[u8]) -> Result<DecodedEvent, DecodeError> {
        let (header, size) = self.frame(pos, data)?;
        let is_fde = header.event_type == EventType::FORMAT_DESCRIPTION;
        let has_crc = is_fde || self.checksums == Some(true);
        let body_end = if has_crc { size - CHECKSUM_LEN } else { size };
        let event = decode_body(header.event_type, &data[HEADER_LEN..body_end], &self.tables)
            .map_err(|e| match e {
                BodyError::Malformed(detail) if is_fde => {
                    DecodeError::BadFormatDescription { pos, detail }
                }
                BodyError::Malformed(detail) => DecodeError::Malformed { pos, detail },
                BodyError::Unsupported(detail) => DecodeError::Unsupported { pos, detail },
                BodyError::UnknownTable(table_id) => DecodeError::UnknownTable { pos, table_id },
            })?;
        match &event {
            Event::FormatDescription(fde) => {
                if fde.version_triple().is_none_or(|v| v < (5, 6, 1)) {
                    return Err(DecodeError::BadFormatDescription {
                        pos,
                        detail: format!(
                            "server version {:?} predates checksums (5.6.1)",
                            fde.server_version
                        ),
                    });
                }
                self.checksums = Some(fde.checksums());
            }
            Event::TableMap(t) => {
                self.tables.insert(t.table_id, t.clone());
            }
            _ => {}
        }
        Ok(DecodedEvent { pos, header, event })
    }
}

impl Iterator for BinlogReader<'_> {
    type Item = Result<DecodedEvent, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_event()
    }
}

/// Everything readable from a file image.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOutcome {
    /// The good events, in order.
    pub events: Vec<DecodedEvent>,
    /// End of the last good event (4 if none; 0 if even the magic is bad or torn).
    pub valid_end: BinlogPos,
    /// What stopped reading before the end of the data, if anything.
    pub error: Option<DecodeError>,
}

/// Reads a whole file image. A clean file gives `error: None` and `valid_end` = its length.
pub fn read_all(data: &[u8]) -> ReadOutcome {
    let mut reader = match BinlogReader::new(data) {
        Ok(r) => r,
        Err(e) => {
            return ReadOutcome {
                events: Vec::new(),
                valid_end: BinlogPos(0),
                error: Some(e),
            }
        }
    };
    let mut events = Vec::new();
    for ev in reader.by_ref() {
        match ev {
            Ok(ev) => events.push(ev),
            Err(_) => break,
        }
    }
    ReadOutcome {
        events,
        valid_end: reader.valid_end(),
        error: reader.error().cloned(),
    }
}

#[cfg(test)]
mod detached_tests {
    use super::*;
    use crate::{EventWriter, FormatDescription, ServerId, Xid};

    #[test]
    fn a_detached_decoder_reads_events_out_of_their_file() {
        let mut w = EventWriter::new(BinlogPos(4), ServerId(1), 0);
        w.write_event(&Event::FormatDescription(FormatDescription::mariadb_10_11(
            "10.11.0-test",
        )))
        .unwrap();
        w.write_event(&Event::Xid(Xid(5))).unwrap();
        let bytes = w.into_bytes();
        let fde_len = u32::from_le_bytes(bytes[9..13].try_into().unwrap()) as usize;
        // In a file, an event must be where its header says.
        let mut d = EventDecoder::new();
        d.decode(BinlogPos(4), &bytes).unwrap();
        assert!(d.decode(BinlogPos(0), &bytes[fde_len..]).is_err());
        // Detached: anywhere, and its checksum is not verified (as MariaDB's BINLOG).
        let mut d = EventDecoder::detached();
        d.decode(BinlogPos(0), &bytes).unwrap();
        let mut xid = bytes[fde_len..].to_vec();
        assert_eq!(
            d.decode(BinlogPos(0), &xid).unwrap().event,
            Event::Xid(Xid(5))
        );
        let n = xid.len();
        xid[n - 1] ^= 0xff;
        assert!(d.decode(BinlogPos(0), &xid).is_ok());
        // Still framed: a truncated event is an error.
        assert!(d.decode(BinlogPos(0), &xid[..n - 1]).is_err());
    }
}
