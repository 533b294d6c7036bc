//! Property tests: encoders and decoders are inverse, and no input makes a decoder panic.

use cohort_protocol::*;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Strategies

fn date() -> impl Strategy<Value = Date> {
    (0u16..=9999, 0u8..=12, 0u8..=31).prop_map(|(year, month, day)| Date { year, month, day })
}

fn datetime() -> impl Strategy<Value = DateTime> {
    (
        date(),
        0u8..24,
        0u8..60,
        0u8..60,
        prop_oneof![Just(0u32), 0u32..1_000_000],
    )
        .prop_map(|(d, hour, minute, second, micros)| DateTime {
            hour,
            minute,
            second,
            micros,
            ..DateTime::from(d)
        })
}

fn time() -> impl Strategy<Value = Time> {
    (
        any::<bool>(),
        0u32..35,
        0u8..24,
        0u8..60,
        0u8..60,
        prop_oneof![Just(0u32), 0u32..1_000_000],
    )
        .prop_map(|(negative, days, hours, minutes, seconds, micros)| Time {
            negative,
            days,
            hours,
            minutes,
            seconds,
            micros,
        })
}

fn finite_f64() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |v| v.is_finite())
}

fn finite_f32() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("finite", |v| v.is_finite())
}

/// An owned cell description (proptest values must own their data).
#[derive(Clone, Debug)]
enum OwnedCell {
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(DateTime),
    Time(Time),
}

impl OwnedCell {
    fn cell(&self) -> Cell<'_> {
        match self {
            OwnedCell::Null => Cell::Null,
            OwnedCell::Int(v) => Cell::Int(*v),
            OwnedCell::UInt(v) => Cell::UInt(*v),
            OwnedCell::Float(v) => Cell::Float(*v),
            OwnedCell::Double(v) => Cell::Double(*v),
            OwnedCell::Bytes(b) => Cell::Bytes(b),
            OwnedCell::Date(d) => Cell::Date(*d),
            OwnedCell::DateTime(dt) => Cell::DateTime(*dt),
            OwnedCell::Time(t) => Cell::Time(*t),
        }
    }

    /// The column type a server would declare for this value (and whether it is unsigned).
    fn column(&self) -> ColumnDefinition {
        let (ty, unsigned) = match self {
            OwnedCell::Null | OwnedCell::Bytes(_) => (ColumnType::VAR_STRING, false),
            OwnedCell::Int(_) => (ColumnType::LONGLONG, false),
            OwnedCell::UInt(_) => (ColumnType::LONGLONG, true),
            OwnedCell::Float(_) => (ColumnType::FLOAT, false),
            OwnedCell::Double(_) => (ColumnType::DOUBLE, false),
            OwnedCell::Date(_) => (ColumnType::DATE, false),
            OwnedCell::DateTime(_) => (ColumnType::DATETIME, false),
            OwnedCell::Time(_) => (ColumnType::TIME, false),
        };
        let mut col = ColumnDefinition::simple("c", ty, charset::BINARY, 0);
        if ty.has_fractional_seconds() {
            col.decimals = 6;
        }
        if unsigned {
            col.flags |= column_flags::UNSIGNED;
        }
        col
    }
}

fn owned_cell() -> impl Strategy<Value = OwnedCell> {
    prop_oneof![
        Just(OwnedCell::Null),
        any::<i64>().prop_map(OwnedCell::Int),
        any::<u64>().prop_map(OwnedCell::UInt),
        finite_f32().prop_map(OwnedCell::Float),
        finite_f64().prop_map(OwnedCell::Double),
        prop::collection::vec(any::<u8>(), 0..300).prop_map(OwnedCell::Bytes),
        date().prop_map(OwnedCell::Date),
        datetime().prop_map(OwnedCell::DateTime),
        time().prop_map(OwnedCell::Time),
    ]
}

fn column_type() -> impl Strategy<Value = ColumnType> {
    prop_oneof![
        prop::sample::select(vec![
            ColumnType::TINY,
            ColumnType::SHORT,
            ColumnType::LONG,
            ColumnType::LONGLONG,
            ColumnType::INT24,
            ColumnType::YEAR,
            ColumnType::FLOAT,
            ColumnType::DOUBLE,
            ColumnType::DATE,
            ColumnType::DATETIME,
            ColumnType::TIMESTAMP,
            ColumnType::TIME,
            ColumnType::NULL,
            ColumnType::VAR_STRING,
            ColumnType::NEWDECIMAL,
            ColumnType::BLOB,
        ]),
        any::<u8>().prop_map(ColumnType),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::char::range('!', '~'), 0..max).prop_map(|v| v.into_iter().collect())
}

// ---------------------------------------------------------------------------------------
// Round trips

proptest! {
    #[test]
    fn framing_round_trips(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..2000), 1..8),
        first_seq in any::<u8>(),
        cut in prop::collection::vec(1usize..700, 1..30),
    ) {
        let mut writer = PacketWriter::new();
        writer.set_seq(first_seq);
        for p in &payloads {
            writer.write_with(|out| out.extend_from_slice(p));
        }
        let bytes = writer.take();
        let mut reader = PacketReader::new(4096);
        reader.set_next_seq(first_seq);
        let mut got = Vec::new();
        let mut rest = &bytes[..];
        let mut cuts = cut.iter().cycle();
        while !rest.is_empty() {
            let n = (*cuts.next().unwrap()).min(rest.len());
            reader.feed(&rest[..n]);
            rest = &rest[n..];
            while let Some(packet) = reader.next_packet().unwrap() {
                got.push((packet.seq, packet.payload.to_vec()));
            }
        }
        let expected: Vec<(u8, Vec<u8>)> = payloads
            .iter()
            .enumerate()
            .map(|(i, p)| (first_seq.wrapping_add(i as u8), p.clone()))
            .collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(reader.buffered(), 0);
    }

    #[test]
    fn lenenc_round_trips(v in any::<u64>(), bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut out = Vec::new();
        codec::put_lenenc_int(&mut out, v);
        codec::put_lenenc_bytes(&mut out, &bytes);
        let mut r = codec::Reader::new(&out);
        prop_assert_eq!(r.lenenc_int("v").unwrap(), v);
        prop_assert_eq!(r.lenenc_bytes("b").unwrap(), &bytes[..]);
        prop_assert!(r.is_empty());
    }

    #[test]
    fn binary_rows_round_trip(cells in prop::collection::vec(owned_cell(), 0..20)) {
        let columns: Vec<ColumnDefinition> = cells.iter().map(OwnedCell::column).collect();
        let cell_refs: Vec<Cell> = cells.iter().map(OwnedCell::cell).collect();
        let mut out = Vec::new();
        write_binary_row(&mut out, &columns, &cell_refs).unwrap();
        prop_assert_eq!(parse_binary_row(&out, &columns).unwrap(), cell_refs);
    }

    #[test]
    fn text_rows_carry_each_cells_text(cells in prop::collection::vec(owned_cell(), 0..20)) {
        let columns: Vec<ColumnDefinition> = cells.iter().map(OwnedCell::column).collect();
        let cell_refs: Vec<Cell> = cells.iter().map(OwnedCell::cell).collect();
        let mut out = Vec::new();
        write_text_row(&mut out, &columns, &cell_refs).unwrap();
        let fields = parse_text_row(&out, cells.len()).unwrap();
        for ((field, cell), column) in fields.iter().zip(&cell_refs).zip(&columns) {
            match cell {
                Cell::Null => prop_assert!(field.is_none()),
                Cell::Bytes(b) => prop_assert_eq!(field.unwrap(), *b),
                other => {
                    // Temporal columns here are declared with 6 fractional digits.
                    let digits = column.column_type.has_fractional_seconds().then_some(6);
                    let mut text = String::new();
                    other.write_text(&mut text, digits).unwrap();
                    prop_assert_eq!(field.unwrap(), text.as_bytes());
                }
            }
        }
    }

    #[test]
    fn execute_round_trips(
        cells in prop::collection::vec(owned_cell(), 0..20),
        stmt_id in any::<u32>(),
    ) {
        let cell_refs: Vec<Cell> = cells.iter().map(OwnedCell::cell).collect();
        let expected: Vec<ParamValue> = cell_refs.iter().map(|c| ParamValue::from_cell(*c)).collect();
        let mut out = Vec::new();
        encode_execute(&mut out, stmt_id, &cell_refs, true);
        let mut types = Vec::new();
        let ex = parse_execute(&out, cells.len(), &mut types, &mut []).unwrap();
        prop_assert_eq!(ex.stmt_id, stmt_id);
        prop_assert_eq!(&ex.params, &expected);
        // Types remembered: the next execute may omit them.
        out.clear();
        encode_execute(&mut out, stmt_id, &cell_refs, false);
        let ex = parse_execute(&out, cells.len(), &mut types, &mut []).unwrap();
        prop_assert_eq!(&ex.params, &expected);
    }

    #[test]
    fn doubles_print_shortest_round_trip(v in finite_f64()) {
        let text = Cell::Double(v).to_text();
        prop_assert_eq!(text.parse::<f64>().unwrap(), v);
        prop_assert!(!text.contains('+'));
    }

    #[test]
    fn floats_print_six_significant_digits(v in finite_f32()) {
        // MariaDB prints a FLOAT rounded to six significant digits.
        let text = Cell::Float(v).to_text();
        let back = text.parse::<f64>().unwrap();
        let v = f64::from(v);
        prop_assert!((back - v).abs() <= v.abs() * 5e-6, "{} printed {}", v, text);
        let mantissa = text.split('e').next().unwrap();
        let digits = mantissa.trim_start_matches(['-', '0', '.']).replace('.', "");
        prop_assert!(digits.trim_end_matches('0').len() <= 6, "{} printed {}", v, text);
    }

    #[test]
    fn handshake_response_round_trips(
        user in text(20),
        auth in prop::collection::vec(any::<u8>(), 0..40),
        database in prop::option::of(text(20).prop_filter("non-empty", |s| !s.is_empty())),
        attrs in prop::collection::vec((text(10), text(10)), 0..5),
        charset in any::<u8>(),
        max_packet in any::<u32>(),
    ) {
        let mut capabilities = CLIENT_CAPABILITIES;
        if database.is_some() {
            capabilities |= capability::CONNECT_WITH_DB;
        }
        let resp = HandshakeResponse {
            capabilities,
            mariadb_capabilities: 0,
            max_packet_size: max_packet,
            charset,
            user,
            auth_response: auth,
            database,
            auth_plugin: Some(NATIVE_PASSWORD_PLUGIN.to_string()),
            connect_attrs: attrs,
        };
        let mut out = Vec::new();
        resp.encode(&mut out);
        prop_assert_eq!(HandshakeResponse::parse(&out).unwrap(), resp);
    }

    #[test]
    fn greeting_round_trips(version in text(40), id in any::<u32>(), random in any::<[u8; 20]>()) {
        let hs = Handshake::new(&version, id, scramble_from_random(random));
        let mut out = Vec::new();
        hs.encode(&mut out);
        prop_assert_eq!(Handshake::parse(&out).unwrap(), hs);
    }

    #[test]
    fn column_definitions_round_trip(
        names in prop::collection::vec(text(30), 5),
        charset in any::<u16>(),
        length in any::<u32>(),
        ty in any::<u8>(),
        flags in any::<u16>(),
        decimals in any::<u8>(),
    ) {
        let def = ColumnDefinition {
            schema: names[0].clone(),
            table: names[1].clone(),
            org_table: names[2].clone(),
            name: names[3].clone(),
            org_name: names[4].clone(),
            charset,
            column_length: length,
            column_type: ColumnType(ty),
            flags,
            decimals,
            extended: ExtendedTypeInfo::None,
        };
        let mut out = Vec::new();
        def.encode(&mut out);
        prop_assert_eq!(ColumnDefinition::parse(&out).unwrap(), def);
    }
}

// ---------------------------------------------------------------------------------------
// No panics on arbitrary input

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

proptest! {
    #[test]
    fn packet_reader_never_panics(
        chunks in prop::collection::vec(bytes(64), 0..20),
        max in 0usize..100,
        seq in any::<u8>(),
    ) {
        let mut reader = PacketReader::new(max);
        reader.set_next_seq(seq);
        for chunk in &chunks {
            reader.feed(chunk);
            while let Ok(Some(packet)) = reader.next_packet() {
                prop_assert!(packet.payload.len() <= max);
            }
        }
    }

    #[test]
    fn command_and_handshake_parsers_never_panic(payload in bytes(200), caps in any::<u32>()) {
        let _ = Command::parse(&payload, caps);
        let _ = HandshakeResponse::parse(&payload);
        let _ = Handshake::parse(&payload);
        let _ = ChangeUser::parse(&payload, caps);
        let _ = AuthSwitchRequest::parse(&payload);
        let _ = peek_stmt_id(&payload);
    }

    #[test]
    fn command_bodies_never_panic(code in 0u8..0x20, body in bytes(100), caps in any::<u32>()) {
        let mut payload = vec![code];
        payload.extend(body);
        let _ = Command::parse(&payload, caps);
    }

    #[test]
    fn execute_parser_never_panics(
        payload in bytes(120),
        num_params in 0usize..20,
        remembered in prop::collection::vec((column_type(), any::<u8>()), 0..20),
        long in prop::collection::vec(prop::option::of(bytes(8)), 0..20),
    ) {
        let mut types: Vec<ParamType> = remembered
            .into_iter()
            .map(|(column_type, flags)| ParamType { column_type, flags })
            .collect();
        let mut long = long;
        let mut with_header = vec![0x17, 1, 0, 0, 0, 0, 1, 0, 0, 0];
        with_header.extend_from_slice(&payload);
        let _ = parse_execute(&with_header, num_params, &mut types.clone(), &mut long.clone());
        let _ = parse_params(&payload, num_params, &mut types, &mut long);
    }

    #[test]
    fn response_parsers_never_panic(
        payload in bytes(120),
        ncols in 0usize..10,
        types in prop::collection::vec((column_type(), any::<u16>()), 0..10),
    ) {
        let columns: Vec<ColumnDefinition> = types
            .into_iter()
            .map(|(ty, flags)| ColumnDefinition { flags, ..ColumnDefinition::simple("c", ty, 63, 0) })
            .collect();
        let _ = parse_text_row(&payload, ncols);
        let _ = parse_binary_row(&payload, &columns);
        let _ = OkPacket::parse(&payload);
        let _ = ErrPacket::parse(&payload);
        let _ = EofPacket::parse(&payload);
        let _ = PrepareOk::parse(&payload);
        let _ = ColumnDefinition::parse(&payload);
    }

    #[test]
    fn response_decoder_never_panics(payloads in prop::collection::vec(bytes(40), 0..12), prepare in any::<bool>()) {
        let mut decoder = if prepare { ResponseDecoder::for_prepare() } else { ResponseDecoder::new() };
        for p in &payloads {
            if decoder.decode(p).is_err() {
                break;
            }
        }
    }

    #[test]
    fn row_encoders_never_panic(
        cells in prop::collection::vec(owned_cell(), 0..10),
        types in prop::collection::vec(column_type(), 0..10),
    ) {
        let columns: Vec<ColumnDefinition> =
            types.into_iter().map(|ty| ColumnDefinition::simple("c", ty, 63, 0)).collect();
        let cell_refs: Vec<Cell> = cells.iter().map(OwnedCell::cell).collect();
        let mut w = PacketWriter::new();
        let before = w.len();
        if w.write_binary_row(&columns, &cell_refs).is_err() {
            prop_assert_eq!(w.len(), before);
        }
        let _ = w.write_text_row(&columns, &cell_refs);
    }
}
