//! The connection's character sets over the wire: the handshake's collation, SET NAMES, query
//! text read in character_set_client, results and column definitions in
//! character_set_results (each compared with what MariaDB 10.11 sent for the same input).

use super::tests::context_on;
use super::Session;
use crate::log::device::SimDir;
use cohort_protocol::{
    encode_query, parse_text_row, write_packet, ColumnDefinition, ResponseDecoder, ResponseEvent,
};

/// A logged-in session whose handshake named collation `id`.
fn session(id: u8) -> Session {
    session_on(&context_on(&SimDir::new()), id)
}

fn session_on(ctx: &std::sync::Arc<crate::session::ServerContext>, id: u8) -> Session {
    super::multi_kill_tests::session_with(ctx, 1, "root", |resp, _| resp.charset = id)
}

/// What one query answered: its columns and raw rows, or the error's code and message bytes.
#[derive(Debug, Default)]
struct Answer {
    columns: Vec<ColumnDefinition>,
    /// Raw name bytes of each column (as sent, before any lossy decoding).
    names: Vec<Vec<u8>>,
    rows: Vec<Vec<Option<Vec<u8>>>>,
    error: Option<(u16, Vec<u8>)>,
}

fn query(s: &mut Session, sql: &[u8]) -> Answer {
    let mut payload = Vec::new();
    encode_query(&mut payload, "");
    payload.extend_from_slice(sql);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 0, &payload);
    let mut out = Vec::new();
    s.on_bytes(&bytes, &mut out);
    let mut decoder = ResponseDecoder::new();
    let mut answer = Answer::default();
    let mut at = 0;
    while at + 4 <= out.len() {
        let len = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], 0]) as usize;
        let payload = &out[at + 4..at + 4 + len];
        at += 4 + len;
        match decoder.decode(payload).unwrap() {
            ResponseEvent::Err(e) => answer.error = Some((e.code, e.message.to_vec())),
            ResponseEvent::Column(c) => {
                answer.columns.push(ColumnDefinition::parse(c).unwrap());
                answer.names.push(name_bytes(c));
            }
            ResponseEvent::Row(r) => {
                let n = answer.columns.len();
                let row = parse_text_row(r, n).unwrap();
                answer
                    .rows
                    .push(row.into_iter().map(|v| v.map(<[u8]>::to_vec)).collect());
            }
            _ => {}
        }
    }
    answer
}

/// The raw `name` field (the fifth length-prefixed string, after the catalog).
fn name_bytes(payload: &[u8]) -> Vec<u8> {
    let mut at = 0;
    for field in 0..5 {
        let len = payload[at] as usize;
        if field == 4 {
            return payload[at + 1..at + 1 + len].to_vec();
        }
        at += 1 + len;
    }
    unreachable!()
}

fn run(s: &mut Session, sql: &str) {
    let a = query(s, sql.as_bytes());
    assert!(a.error.is_none(), "{sql}: {:?}", a.error);
}

fn value(s: &mut Session, sql: &[u8]) -> Vec<u8> {
    let a = query(s, sql);
    assert!(a.error.is_none(), "{:?}", a.error);
    a.rows[0][0].clone().unwrap_or_default()
}

fn setup(s: &mut Session) {
    run(s, "CREATE DATABASE d");
    run(s, "USE d");
    run(
        s,
        "CREATE TABLE c (a VARCHAR(10) COLLATE utf8mb4_bin, e VARCHAR(10), bl BLOB, n INT)",
    );
    run(s, "INSERT INTO c VALUES ('é😀', 'e😀', 'é😀', 1)");
}

#[test]
fn the_handshake_collation_sets_the_connection_character_sets() {
    for (id, cs, coll) in [
        (33u8, "utf8mb3", "utf8mb3_general_ci"),
        (45, "utf8mb4", "utf8mb4_general_ci"),
        (224, "utf8mb4", "utf8mb4_unicode_ci"),
        (8, "latin1", "latin1_swedish_ci"),
    ] {
        let mut s = session(id);
        let sql = b"SELECT @@character_set_client, @@character_set_results, @@collation_connection";
        let a = query(&mut s, sql);
        let row: Vec<Vec<u8>> = a.rows[0].iter().map(|v| v.clone().unwrap()).collect();
        assert_eq!(
            row,
            [cs.as_bytes(), cs.as_bytes(), coll.as_bytes()],
            "id {id}"
        );
    }
    // An id Cohort does not know: the server's defaults.
    let mut s = session(200);
    assert_eq!(
        value(&mut s, b"SELECT @@collation_connection"),
        b"utf8mb4_general_ci"
    );
}

/// A handshake collation id, the values of `a` and `e`, the charset of character columns and
/// the length of `a`.
type ResultCase = (u8, &'static [u8], &'static [u8], u16, u32);

#[test]
fn results_are_in_character_set_results_as_mariadb_sends_them() {
    // From MariaDB 10.11.
    let cases: [ResultCase; 5] = [
        (45, "é😀".as_bytes(), "e😀".as_bytes(), 45, 40),
        (46, "é😀".as_bytes(), "e😀".as_bytes(), 46, 40),
        (33, "é?".as_bytes(), b"e?", 33, 30),
        (8, b"\xE9?", b"e?", 8, 10),
        (11, b"??", b"e?", 11, 10),
    ];
    let ctx = context_on(&SimDir::new());
    setup(&mut session_on(&ctx, 45));
    for (id, a, e, charset, len) in cases {
        let mut s = session_on(&ctx, id);
        run(&mut s, "USE d");
        let r = query(&mut s, b"SELECT a, e, bl, n FROM c");
        let row = &r.rows[0];
        assert_eq!(row[0].as_deref(), Some(a), "id {id}");
        assert_eq!(row[1].as_deref(), Some(e), "id {id}");
        // A BLOB is bytes: never converted, charset 63.
        assert_eq!(row[2].as_deref(), Some("é😀".as_bytes()), "id {id}");
        let ids: Vec<u16> = r.columns.iter().map(|c| c.charset).collect();
        assert_eq!(ids, [charset, charset, 63, 63], "id {id}");
        assert_eq!(r.columns[0].column_length, len, "id {id}");
    }
}

#[test]
fn set_names_and_character_set_results() {
    let mut s = session(45);
    setup(&mut s);
    run(&mut s, "SET NAMES utf8mb3 COLLATE utf8mb3_bin");
    let r = query(&mut s, b"SELECT a FROM c");
    assert_eq!(
        (r.columns[0].charset, r.rows[0][0].as_deref()),
        (83, Some("é?".as_bytes()))
    );
    run(&mut s, "SET character_set_results = latin1");
    let r = query(&mut s, "SELECT a AS `é` FROM c".as_bytes());
    assert_eq!(r.columns[0].charset, 8);
    // Column names too.
    assert_eq!(r.names[0], b"\xE9");
    assert_eq!(r.rows[0][0].as_deref(), Some(&b"\xE9?"[..]));
    // NULL and binary: no conversion.
    run(&mut s, "SET character_set_results = NULL");
    assert_eq!(value(&mut s, b"SELECT a FROM c"), "é😀".as_bytes());
    run(&mut s, "SET character_set_results = binary");
    let r = query(&mut s, b"SELECT a FROM c");
    assert_eq!(
        (r.columns[0].charset, r.rows[0][0].as_deref()),
        (63, Some("é😀".as_bytes()))
    );
}

#[test]
fn query_text_is_read_in_character_set_client() {
    let mut s = session(45);
    setup(&mut s);
    run(&mut s, "SET NAMES latin1");
    // Byte 0xE9 is 'é' for a latin1 client: stored as é in the utf8mb4 column.
    let a = query(&mut s, b"INSERT INTO c (e, n) VALUES ('caf\xE9', 2)");
    assert!(a.error.is_none(), "{:?}", a.error);
    run(&mut s, "SET NAMES utf8mb4");
    assert_eq!(
        value(&mut s, b"SELECT e FROM c WHERE n = 2"),
        "café".as_bytes()
    );
    assert_eq!(
        value(&mut s, b"SELECT HEX(e) FROM c WHERE n = 2"),
        b"636166C3A9"
    );
    // A utf8mb4 client's raw bytes in a binary column stay the bytes sent.
    let a = query(&mut s, b"INSERT INTO c (bl, n) VALUES ('\xFF\x00\xE9', 3)");
    assert!(a.error.is_none(), "{:?}", a.error);
    assert_eq!(
        value(&mut s, b"SELECT HEX(bl) FROM c WHERE n = 3"),
        b"FF00E9"
    );
}

#[test]
fn errors_are_in_character_set_results() {
    let mut s = session(8);
    run(&mut s, "CREATE DATABASE d");
    let (code, message) = query(&mut s, b"SELECT * FROM d.`t\xE9s`").error.unwrap();
    assert_eq!(code, 1146);
    assert_eq!(message, b"Table 'd.t\xE9s' doesn't exist".to_vec());
}

#[test]
fn literals_take_collation_connection() {
    let mut s = session(45);
    assert_eq!(value(&mut s, b"SELECT 'a' = 'A'"), b"1");
    run(&mut s, "SET NAMES utf8mb4 COLLATE utf8mb4_bin");
    assert_eq!(value(&mut s, b"SELECT 'a' = 'A'"), b"0");
    assert_eq!(value(&mut s, b"SELECT COLLATION('a')"), b"utf8mb4_bin");
    run(&mut s, "SET collation_connection = utf8mb4_unicode_ci");
    assert_eq!(
        value(&mut s, b"SELECT COLLATION('a')"),
        b"utf8mb4_unicode_ci"
    );
    assert_eq!(value(&mut s, b"SELECT 'a' = 'A'"), b"1");
}
