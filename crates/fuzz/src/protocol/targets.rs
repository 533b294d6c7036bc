//! In-process targets: every decoder (and the encoders that feed the client side) of
//! `cohort-protocol`, each driven by one byte string.
//!
//! A target takes `&[u8]` only — its leading bytes choose the configuration (capabilities,
//! parameter count, limits) — so a failing input is reproduced, minimised and reported as
//! plain bytes, and the same functions could serve a coverage-guided fuzzer. Targets also
//! assert the codec's own promises where they are cheap to check: a payload the reader
//! returns is within its limit, a command it parsed re-encodes to something it parses, a
//! row the encoder wrote decodes with the same columns. A failed promise panics like any
//! other bug, and is reported the same way.
//!
//! [`seed`] makes a starting input for a target: a captured packet from the corpus, or a
//! valid packet built with the crate's own encoders from random values.

use super::corpus::Corpus;
use crate::rng::Rng;
use cohort_protocol::codec::Reader;
use cohort_protocol::{
    check_native, native_hash_from_hex, parse_binary_row, parse_execute, parse_params,
    parse_text_row, peek_stmt_id, scramble_native, status, AuthSwitchRequest, Cell, ChangeUser,
    ColumnDefinition, ColumnType, Command, Date, DateTime, EofPacket, ErrPacket, ErrorCode,
    Handshake, HandshakeResponse, OkPacket, PacketReader, PacketWriter, ParamType, PrepareOk,
    ResponseDecoder, ResponseEvent, Time, MAX_CHUNK,
};

/// One in-process target.
pub struct Target {
    pub name: &'static str,
    /// Runs the target; true when the input was accepted (decoded), for coverage counts.
    pub run: fn(&[u8]) -> bool,
    /// Relative frequency.
    pub weight: u32,
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "packet-reader",
        run: packet_reader,
        weight: 4,
    },
    Target {
        name: "command",
        run: command,
        weight: 6,
    },
    Target {
        name: "execute",
        run: execute,
        weight: 6,
    },
    Target {
        name: "handshake-response",
        run: handshake_response,
        weight: 4,
    },
    Target {
        name: "change-user",
        run: change_user,
        weight: 2,
    },
    Target {
        name: "greeting",
        run: greeting,
        weight: 2,
    },
    Target {
        name: "response",
        run: response,
        weight: 4,
    },
    Target {
        name: "packets",
        run: packets,
        weight: 2,
    },
    Target {
        name: "row-encode",
        run: row_encode,
        weight: 4,
    },
    Target {
        name: "auth",
        run: auth,
        weight: 1,
    },
    Target {
        name: "reader",
        run: reader_ops,
        weight: 2,
    },
    Target {
        name: "split-payload",
        run: split_payload,
        weight: 1,
    },
];

/// Reads configuration values off the front of an input; zeros once it is exhausted.
struct Cfg<'a> {
    data: &'a [u8],
}

impl<'a> Cfg<'a> {
    fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.data.len());
        let (a, b) = self.data.split_at(n);
        self.data = b;
        a
    }

    /// A length byte (mod `modulo`), then that many bytes.
    fn chunk(&mut self, modulo: usize) -> &'a [u8] {
        let n = usize::from(self.u8()) % modulo;
        self.take(n)
    }

    fn rest(&mut self) -> &'a [u8] {
        self.take(self.data.len())
    }
}

/// Payload limits worth testing: tiny, around one chunk, the defaults.
const LIMITS: &[usize] = &[
    0,
    1,
    3,
    4,
    255,
    1024,
    MAX_CHUNK - 1,
    MAX_CHUNK,
    MAX_CHUNK + 1,
    16 << 20,
    64 << 20,
];

fn limit(sel: u8) -> usize {
    LIMITS[usize::from(sel) % LIMITS.len()]
}

// ---------------------------------------------------------------------------------------------
// Server-side decoders

/// `[limit][seq] then ops`: feed a chunk, read into `read_buf`, set the sequence id or the
/// limit; after each op drain `next_packet`.
fn packet_reader(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let mut max = limit(c.u8());
    let mut reader = PacketReader::new(max);
    reader.set_next_seq(c.u8());
    let mut fed = 0usize;
    let mut packets = 0;
    while !c.data.is_empty() {
        match c.u8() % 4 {
            0 => {
                let n = usize::from(c.u8());
                let chunk = c.take(n);
                fed += chunk.len();
                reader.feed(chunk);
            }
            1 => {
                let n = usize::from(c.u8());
                let chunk = c.take(n);
                let buf = reader.read_buf(chunk.len().max(1));
                buf[..chunk.len()].copy_from_slice(chunk);
                // advance() must clamp a count larger than what was read.
                let extra = usize::from(c.u8().is_multiple_of(3));
                reader.advance(chunk.len() + extra);
                fed += chunk.len() + extra;
            }
            2 => reader.set_next_seq(c.u8()),
            _ => {
                max = limit(c.u8());
                reader.set_max_payload(max);
            }
        }
        for _ in 0..4 {
            match reader.next_packet() {
                Ok(Some(p)) => {
                    packets += 1;
                    assert!(
                        p.payload.len() <= max.max(MAX_CHUNK) && p.payload.len() <= fed,
                        "payload of {} bytes from {fed} fed, limit {max}",
                        p.payload.len()
                    )
                }
                _ => break,
            }
        }
        assert!(
            reader.buffered() <= fed,
            "{} buffered of {fed} fed",
            reader.buffered()
        );
    }
    packets > 0
}

/// `[client caps u32] payload`: parse; a parsed command re-encodes to a parsable one.
fn command(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let caps = c.u32();
    let payload = c.rest();
    let Ok(cmd) = Command::parse(payload, caps) else {
        return false;
    };
    let _ = (cmd.code(), cmd.expects_no_reply());
    let mut out = Vec::new();
    cmd.encode(&mut out, caps);
    let again = Command::parse(&out, caps);
    assert!(
        again.is_ok(),
        "re-encoded {cmd:?} does not parse: {again:?}"
    );
    if let Command::StmtExecute { params, .. } = cmd {
        let _ = parse_params(params, 3, &mut Vec::new(), &mut []);
    }
    true
}

/// Parameter counts worth testing.
const PARAM_COUNTS: &[usize] = &[0, 1, 2, 3, 7, 8, 9, 16, 255, 256, 65535];

/// Types a statement may remember from an earlier execute.
const WIRE_TYPES: &[u8] = &[
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
    0x10, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0x11, 0x33,
];

/// `[count sel][flags][remembered types…] payload`: COM_STMT_EXECUTE with remembered types
/// and long data, twice (the second time with the types the first one bound).
fn execute(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let num = PARAM_COUNTS[usize::from(c.u8()) % PARAM_COUNTS.len()];
    let flags = c.u8();
    let mut types: Vec<ParamType> = Vec::new();
    if flags & 1 != 0 {
        for _ in 0..num.min(300) {
            let ty = WIRE_TYPES[usize::from(c.u8()) % WIRE_TYPES.len()];
            types.push(ParamType {
                column_type: ColumnType(ty),
                flags: c.u8(),
            });
        }
    }
    let mut long: Vec<Option<Vec<u8>>> = (0..num.min(4))
        .map(|i| (flags & (2 << i) != 0).then(|| vec![b'L'; i + 1]))
        .collect();
    let payload = c.rest();
    let _ = peek_stmt_id(payload);
    let mut accepted = false;
    for _ in 0..2 {
        if let Ok(ex) = parse_execute(payload, num, &mut types, &mut long) {
            accepted = true;
            assert_eq!(ex.params.len(), num, "decoded parameter count");
            for p in &ex.params {
                let _ = p.as_cell().to_text();
            }
        }
    }
    if payload.len() > 10 {
        let _ = parse_params(&payload[10..], num, &mut types, &mut long);
    }
    accepted
}

/// HandshakeResponse41; a parsed response re-encodes to a parsable one.
fn handshake_response(data: &[u8]) -> bool {
    let Ok(resp) = HandshakeResponse::parse(data) else {
        return false;
    };
    let mut out = Vec::new();
    resp.encode(&mut out);
    let again = HandshakeResponse::parse(&out);
    assert!(
        again.is_ok(),
        "re-encoded {resp:?} does not parse: {again:?}"
    );
    true
}

/// `[caps u32] body`: COM_CHANGE_USER's body.
fn change_user(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let caps = c.u32();
    let body = c.rest();
    let Ok(cu) = ChangeUser::parse(body, caps) else {
        return false;
    };
    let mut out = Vec::new();
    cu.encode(&mut out, caps);
    let again = ChangeUser::parse(&out, caps);
    assert!(again.is_ok(), "re-encoded {cu:?} does not parse: {again:?}");
    true
}

/// `[size sel u16][limit sel][writer][chunking…]`: a payload written by `PacketWriter` (split
/// into 16 MiB pieces when it is that big) and read back by `PacketReader` fed in odd chunks
/// must come back whole and equal, or be refused as too large. Payloads of 16 MiB and more
/// are built for one size selector in 65 536 only (they cost tens of milliseconds).
fn split_payload(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let sel = c.u16();
    let size = if sel == 0 {
        let big = [
            MAX_CHUNK - 1,
            MAX_CHUNK,
            MAX_CHUNK + 1,
            2 * MAX_CHUNK,
            2 * MAX_CHUNK + 3,
        ];
        big[usize::from(c.u8()) % big.len()]
    } else {
        usize::from(sel % 4096)
    };
    let max = limit(c.u8()).max(1);
    let payload: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    let mut w = PacketWriter::new();
    let first_seq = c.u8();
    w.set_seq(first_seq);
    if c.u8().is_multiple_of(2) {
        w.write_payload(&payload);
    } else {
        w.write_with(|out| out.extend_from_slice(&payload));
    }
    let bytes = w.take();
    let mut reader = PacketReader::new(max);
    reader.set_next_seq(first_seq);
    let mut at = 0;
    let mut got: Option<Vec<u8>> = None;
    while at < bytes.len() && got.is_none() {
        let step = (usize::from(c.u16()) + 1) * if c.u8().is_multiple_of(8) { 4096 } else { 1 };
        let end = bytes.len().min(at + step);
        reader.feed(&bytes[at..end]);
        at = end;
        match reader.next_packet() {
            Ok(Some(p)) => got = Some(p.payload.to_vec()),
            Ok(None) => {}
            Err(e) => {
                assert!(
                    size > max,
                    "a {size}-byte payload under the {max} limit refused: {e}"
                );
                return false;
            }
        }
    }
    if size > max {
        assert!(
            got.is_none(),
            "a {size}-byte payload over the {max} limit accepted"
        );
        return false;
    }
    let got = got.expect("the whole stream was fed");
    assert!(
        got == payload,
        "payload of {size} bytes came back as {} bytes",
        got.len()
    );
    assert_eq!(reader.buffered(), 0, "bytes left after the only packet");
    true
}

// ---------------------------------------------------------------------------------------------
// Client-side decoders (used by the bench and by this fuzzer)

fn greeting(data: &[u8]) -> bool {
    let hs = Handshake::parse(data);
    if let Ok(hs) = &hs {
        let mut out = Vec::new();
        hs.encode(&mut out);
        let _ = Handshake::parse(&out);
    }
    let sw = AuthSwitchRequest::parse(data);
    if let Ok(sw) = &sw {
        let _ = sw.scramble();
    }
    hs.is_ok() || sw.is_ok()
}

/// `[flags][columns] then (u16 length, payload)*`: one response through the decoder, every
/// column definition and row parsed on the way.
fn response(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let flags = c.u8();
    let ncols = usize::from(c.u8() % 8);
    let mut decoder = if flags & 1 != 0 {
        ResponseDecoder::for_prepare()
    } else {
        ResponseDecoder::new()
    };
    let mut columns: Vec<ColumnDefinition> = (0..ncols)
        .map(|i| {
            let ty = WIRE_TYPES[usize::from(c.u8()) % WIRE_TYPES.len()];
            ColumnDefinition {
                flags: u16::from(c.u8()) << 5,
                ..ColumnDefinition::simple(&format!("c{i}"), ColumnType(ty), 63, 20)
            }
        })
        .collect();
    while !c.data.is_empty() && !decoder.is_done() {
        let n = usize::from(c.u16() % 2048);
        let payload = c.take(n);
        match decoder.decode(payload) {
            Ok(ResponseEvent::Column(p)) => {
                if let Ok(def) = ColumnDefinition::parse(p) {
                    columns.push(def);
                }
            }
            Ok(ResponseEvent::Row(row)) => {
                let _ = parse_text_row(row, columns.len());
                if let Ok(cells) = parse_binary_row(row, &columns) {
                    for cell in cells {
                        let _ = cell.to_text();
                    }
                }
            }
            Ok(ResponseEvent::Err(e)) => {
                let _ = e.message_text();
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    decoder.is_done()
}

/// `[which] payload`: the single-packet decoders.
fn packets(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let which = c.u8();
    let payload = c.rest();
    match which % 5 {
        0 => OkPacket::parse(payload).is_ok(),
        1 => ErrPacket::parse(payload).map(|e| e.message_text()).is_ok(),
        2 => {
            let _ = cohort_protocol::is_eof_packet(payload);
            EofPacket::parse(payload).is_ok()
        }
        3 => PrepareOk::parse(payload).is_ok(),
        _ => ColumnDefinition::parse(payload).is_ok(),
    }
}

/// The wire types MySQL sends for result columns (not NEWDATE, internal to the server; the
/// decoders refuse unknown ones).
const DEFINED_TYPES: &[u8] = &[
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0f, 0x10,
    0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
];

/// Columns and cells built from the input, written as a whole result set (text and binary)
/// and as OK / ERR / PREPARE_OK / field-list packets, then read back: what the encoder
/// accepts, the decoders must decode.
fn row_encode(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let n = usize::from(c.u8() % 6) + 1;
    let columns: Vec<ColumnDefinition> = (0..n)
        .map(|i| ColumnDefinition {
            decimals: c.u8(),
            flags: c.u16(),
            ..ColumnDefinition::simple(
                &format!("c{i}"),
                ColumnType(DEFINED_TYPES[usize::from(c.u8()) % DEFINED_TYPES.len()]),
                c.u16(),
                c.u32(),
            )
        })
        .collect();
    let texts: Vec<Vec<u8>> = (0..n).map(|_| c.chunk(40).to_vec()).collect();
    let cells: Vec<Cell> = (0..n).map(|i| cell(&mut c, &texts[i])).collect();
    for cell in &cells {
        let _ = cell.to_text();
    }
    let mut w = PacketWriter::new();
    w.set_seq(c.u8());
    let start_seq = w.seq();
    let st = c.u16();
    w.write_result_set_start(&columns, st & !status::MORE_RESULTS_EXISTS);
    let text_ok = w.write_text_row(&columns, &cells).is_ok();
    let binary_ok = w.write_binary_row(&columns, &cells).is_ok();
    w.write_result_set_end(c.u16(), st & !status::MORE_RESULTS_EXISTS);
    let mut reader = PacketReader::new(64 << 20);
    reader.set_next_seq(start_seq);
    reader.feed(w.bytes());
    let mut payloads = Vec::new();
    while let Ok(Some(p)) = reader.next_packet() {
        payloads.push(p.payload.to_vec());
    }
    let rows: Vec<&Vec<u8>> = payloads.iter().skip(n + 2).take(2).collect();
    let mut rows = rows.into_iter();
    if text_ok {
        let row = rows.next().expect("the text row was written");
        let parsed = parse_text_row(row, n);
        assert!(
            parsed.is_ok(),
            "written text row does not parse: {parsed:?}"
        );
    }
    if binary_ok {
        let row = rows.next().expect("the binary row was written");
        let parsed = parse_binary_row(row, &columns);
        assert!(
            parsed.is_ok(),
            "written binary row does not parse: {parsed:?} ({columns:?}, {cells:?})"
        );
    }
    let info = c.chunk(256);
    let mut w = PacketWriter::new();
    w.write_ok(&OkPacket {
        affected_rows: u64::from(c.u32()) << 20,
        last_insert_id: u64::from(c.u32()),
        status: c.u16(),
        warnings: c.u16(),
        info,
        session_state: &[],
    });
    let message = String::from_utf8_lossy(c.chunk(256)).into_owned();
    w.write_err(ErrorCode::Unknown, &message);
    w.write_prepare_ok(c.u32(), u16::from(c.u8()), &columns, c.u16(), c.u16());
    w.write_field_list_column(&columns[0], c.u8().is_multiple_of(2).then_some(info));
    let mut reader = PacketReader::new(64 << 20);
    reader.feed(w.bytes());
    let ok = reader
        .next_packet()
        .ok()
        .flatten()
        .map(|p| OkPacket::parse(p.payload).is_ok());
    assert_eq!(ok, Some(true), "written OK packet does not parse");
    text_ok || binary_ok
}

/// A cell of any kind, fields unchecked (MySQL allows zero dates; the encoder must cope
/// with anything).
fn cell<'a>(c: &mut Cfg<'_>, text: &'a [u8]) -> Cell<'a> {
    match c.u8() % 9 {
        0 => Cell::Null,
        1 => Cell::Int(i64::from_le_bytes([
            c.u8(),
            c.u8(),
            c.u8(),
            c.u8(),
            c.u8(),
            c.u8(),
            c.u8(),
            c.u8(),
        ])),
        2 => Cell::UInt(u64::from(c.u32()) << 32 | u64::from(c.u32())),
        3 => Cell::Float(f32::from_bits(c.u32())),
        4 => Cell::Double(f64::from_bits(
            u64::from(c.u32()) << 32 | u64::from(c.u32()),
        )),
        5 => Cell::Bytes(text),
        6 => Cell::Date(Date {
            year: c.u16(),
            month: c.u8(),
            day: c.u8(),
        }),
        7 => Cell::DateTime(DateTime {
            year: c.u16(),
            month: c.u8(),
            day: c.u8(),
            hour: c.u8(),
            minute: c.u8(),
            second: c.u8(),
            micros: c.u32(),
        }),
        _ => Cell::Time(Time {
            negative: c.u8() % 2 == 1,
            days: c.u32(),
            hours: c.u8(),
            minutes: c.u8(),
            seconds: c.u8(),
            micros: c.u32(),
        }),
    }
}

/// `[stored 20][scramble length] scramble, token`: the password checks.
fn auth(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let mut stored = [0u8; 20];
    stored.copy_from_slice(&{
        let mut v = c.take(20).to_vec();
        v.resize(20, 0);
        v
    });
    let n = usize::from(c.u8() % 64);
    let scramble = c.take(n);
    let token = c.rest();
    let _ = scramble_native(token, scramble);
    let _ = native_hash_from_hex(&String::from_utf8_lossy(token));
    check_native(&stored, scramble, token)
}

/// A program of `Reader` calls over the rest of the input.
fn reader_ops(data: &[u8]) -> bool {
    let mut c = Cfg { data };
    let ops = c.chunk(32).to_vec();
    let mut r = Reader::new(c.rest());
    let mut accepted = false;
    for op in ops {
        let result = match op % 10 {
            0 => r.lenenc_int("x").map(|_| ()),
            1 => r.lenenc_bytes("x").map(|_| ()),
            2 => r.nul_bytes("x").map(|_| ()),
            3 => {
                r.nul_bytes_or_rest();
                Ok(())
            }
            4 => r.bytes(usize::from(op), "x").map(|_| ()),
            5 => r.skip(usize::from(op) * 1000, "x"),
            6 => r.u16("x").map(|_| ()),
            7 => r.u24("x").map(|_| ()),
            8 => r.u64("x").map(|_| ()),
            _ => cohort_protocol::codec::utf8(r.rest(), "x").map(|_| ()),
        };
        accepted |= result.is_ok();
        let _ = (r.remaining(), r.position(), r.peek_u8(), r.is_empty());
    }
    accepted
}

// ---------------------------------------------------------------------------------------------
// Starting inputs

/// A starting input for `target`: from the corpus or built with the encoders.
pub fn seed(target: &str, rng: &mut Rng, corpus: &Corpus) -> Vec<u8> {
    let pick = |rng: &mut Rng, v: &[Vec<u8>]| -> Vec<u8> {
        if v.is_empty() {
            Vec::new()
        } else {
            v[rng.index(v.len())].clone()
        }
    };
    match target {
        "packet-reader" => {
            let mut out = vec![rng.u8(), 0];
            let mut stream = Vec::new();
            let mut seq = 0u8;
            for _ in 0..rng.range(1, 4) {
                let payload = pick(rng, &corpus.commands);
                cohort_protocol::write_packet(&mut stream, &mut seq, &payload);
            }
            for chunk in stream.chunks(rng.range(1, 255) as usize) {
                out.push(0);
                out.push(chunk.len() as u8);
                out.extend_from_slice(chunk);
            }
            out
        }
        "command" | "change-user" => {
            let mut out = caps(rng).to_le_bytes().to_vec();
            if target == "change-user" {
                out.extend(change_user_body(rng));
            } else if rng.chance(1, 3) {
                out.push(0x11);
                out.extend(change_user_body(rng));
            } else {
                out.extend(pick(rng, &corpus.commands));
            }
            out
        }
        "execute" => {
            let mut out = vec![rng.u8(), rng.u8()];
            let nparams = rng.range(0, 20) as usize;
            let params: Vec<crate::sql::values::Param> = (0..nparams)
                .map(|_| crate::sql::values::param(rng))
                .collect();
            if rng.chance(1, 2) {
                out[0] = PARAM_COUNTS.iter().position(|&n| n == nparams).unwrap_or(1) as u8;
                out.extend(crate::sql::values::execute_payload(
                    rng.u8().into(),
                    &params,
                    rng.chance(3, 4),
                ));
            } else {
                let cmds: Vec<&Vec<u8>> = corpus
                    .commands
                    .iter()
                    .filter(|c| c.first() == Some(&0x17))
                    .collect();
                if !cmds.is_empty() {
                    out.extend(cmds[rng.index(cmds.len())].iter());
                }
            }
            out
        }
        "handshake-response" => {
            if rng.bool() {
                pick(rng, &corpus.handshake_responses)
            } else {
                handshake_response_bytes(rng)
            }
        }
        "greeting" => pick(rng, &corpus.greetings),
        "response" => {
            let mut out = vec![0, rng.u8()];
            if corpus.responses.is_empty() {
                return out;
            }
            let r = &corpus.responses[rng.index(corpus.responses.len())];
            out[0] = u8::from(r.prepare) | u8::from(r.binary) << 1;
            for p in &r.payloads {
                out.extend_from_slice(&(p.len() as u16).to_le_bytes());
                out.extend_from_slice(p);
            }
            out
        }
        "packets" => {
            let mut out = vec![rng.u8()];
            if let Some(r) = (!corpus.responses.is_empty())
                .then(|| &corpus.responses[rng.index(corpus.responses.len())])
            {
                if !r.payloads.is_empty() {
                    out.extend_from_slice(&r.payloads[rng.index(r.payloads.len())]);
                }
            }
            out
        }
        _ => {
            let n = rng.size(64, 512) as usize;
            rng.bytes(n)
        }
    }
}

fn caps(rng: &mut Rng) -> u32 {
    match rng.below(3) {
        0 => cohort_protocol::SERVER_CAPABILITIES,
        1 => cohort_protocol::CLIENT_CAPABILITIES,
        _ => rng.next_u64() as u32,
    }
}

fn change_user_body(rng: &mut Rng) -> Vec<u8> {
    let cu = ChangeUser {
        user: crate::sql::values::word(rng),
        auth_response: {
            let n = rng_len(rng, 20);
            rng.bytes(n)
        },
        database: rng.bool().then(|| "fz".to_string()),
        charset: rng.bool().then(|| rng.u8().into()),
        auth_plugin: rng.bool().then(|| "mysql_native_password".to_string()),
        connect_attrs: (0..rng.below(3))
            .map(|i| (format!("k{i}"), "v".repeat(rng_len(rng, 300))))
            .collect(),
    };
    let mut out = Vec::new();
    cu.encode(&mut out, caps(rng));
    out
}

fn rng_len(rng: &mut Rng, typical: u64) -> usize {
    rng.size(typical, 300) as usize
}

/// A HandshakeResponse41 with random capabilities and fields, encoded by the codec.
pub fn handshake_response_bytes(rng: &mut Rng) -> Vec<u8> {
    let resp = HandshakeResponse {
        capabilities: caps(rng) | cohort_protocol::capability::PROTOCOL_41,
        mariadb_capabilities: rng.u8().into(),
        max_packet_size: rng.next_u64() as u32,
        charset: rng.u8(),
        user: rng
            .one(&["root", "fzu", "", "nosuch", "r\u{f6}\u{f6}t"])
            .to_string(),
        auth_response: {
            let n = rng_len(rng, 20);
            rng.bytes(n)
        },
        database: rng
            .bool()
            .then(|| rng.one(&["fz", "nosuch", ""]).to_string()),
        auth_plugin: rng.bool().then(|| {
            rng.one(&[
                "mysql_native_password",
                "caching_sha2_password",
                "mysql_clear_password",
                "",
                "x",
            ])
            .to_string()
        }),
        connect_attrs: (0..rng.below(4))
            .map(|i| (format!("_k{i}"), "v".repeat(rng_len(rng, 10))))
            .collect(),
    };
    let mut out = Vec::new();
    resp.encode(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_payloads_round_trip_at_the_chunk_edges() {
        for k in 0..5u8 {
            // size selector 0 (big), which big size, limit 64 MiB, writer, then 255-byte
            // then 4 MiB feeds.
            let input = [0, 0, k, 10, 0, k, 0xFF, 0, 1, 0xFF, 0x03, 0];
            assert!(split_payload(&input), "big size {k}");
        }
        // Over the limit: refused, never returned.
        assert!(!split_payload(&[0, 0, 4, 7, 0, 0]));
    }

    #[test]
    fn targets_accept_their_seeds_and_noise() {
        let corpus = Corpus::load(&Corpus::default_dirs());
        let mut rng = Rng::new(3);
        for t in TARGETS {
            for _ in 0..200 {
                let input = seed(t.name, &mut rng, &corpus);
                (t.run)(&input);
                let n = rng.index(200);
                (t.run)(&rng.bytes(n));
            }
        }
    }
}
