//! Session state tracking and extended column metadata on the wire: a client that
//! negotiated CLIENT_SESSION_TRACK and MARIADB_CLIENT_EXTENDED_METADATA, bytes in and out,
//! compared with what MariaDB 10.11 sends for the same statements.

use super::tests::{context_on, queries};
use super::{Flow, Session};
use crate::log::device::SimDir;
use cohort_protocol::{
    capability, mariadb_capability, status, write_packet, Handshake, HandshakeResponse, OkPacket,
    PacketReader,
};

/// A session logged in to `db` with the given capabilities added (and CLIENT_MYSQL clear);
/// returns it and the login OK's payload.
fn login(caps: u32, ext: u32, db: Option<&str>) -> (Session, Vec<u8>) {
    let ctx = context_on(&SimDir::new());
    if let Some(db) = db {
        let mut sess = crate::session::SessionState::new(9, "root", "%", None);
        crate::sql::execute_text(&ctx, &mut sess, &format!("CREATE DATABASE {db}")).unwrap();
        sess.end_statement(&ctx, true).unwrap();
    }
    let (mut s, greeting) = Session::start(ctx, 1, "127.0.0.1".into(), false);
    let mut reader = PacketReader::new(1 << 24);
    reader.feed(&greeting);
    let hs = Handshake::parse(reader.next_packet().unwrap().unwrap().payload).unwrap();
    assert_eq!(hs.capabilities & capability::LONG_PASSWORD, 0);
    assert_ne!(hs.capabilities & capability::SESSION_TRACK, 0);
    assert_eq!(
        hs.mariadb_capabilities,
        mariadb_capability::EXTENDED_METADATA | mariadb_capability::STMT_BULK_OPERATIONS
    );
    let mut resp = HandshakeResponse::native("root", "", db, &hs);
    resp.capabilities = (resp.capabilities | caps) & !capability::LONG_PASSWORD;
    resp.mariadb_capabilities = ext;
    let mut payload = Vec::new();
    resp.encode(&mut payload);
    let mut bytes = Vec::new();
    write_packet(&mut bytes, &mut 1, &payload);
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&bytes, &mut out), Flow::Authenticated);
    let ok = payloads(&out).remove(0);
    (s, ok)
}

/// The payloads of the packets in `out`.
fn payloads(out: &[u8]) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let mut at = 0;
    while at + 4 <= out.len() {
        let len = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], 0]) as usize;
        found.push(out[at + 4..at + 4 + len].to_vec());
        at += 4 + len;
    }
    found
}

/// The packets answering one COM_QUERY.
fn query(s: &mut Session, sql: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    assert_eq!(s.on_bytes(&queries(&[sql]), &mut out), Flow::Continue);
    payloads(&out)
}

#[test]
fn ok_packets_carry_what_the_statement_changed() {
    let (mut s, ok) = login(capability::SESSION_TRACK, 0, Some("d1"));
    // A login with a database reports it.
    assert_eq!(ok, b"\x00\x00\x00\x02\x40\x00\x00\x00\x05\x01\x03\x02d1");
    let ok = query(&mut s, "SET autocommit = 0");
    let mut want = b"\x00\x00\x00\x00\x40\x00\x00\x00\x11\x00\x0f".to_vec();
    want.extend_from_slice(b"\x0aautocommit\x03OFF");
    assert_eq!(ok, [want]);
    // Nothing changed: no tail at all.
    assert_eq!(query(&mut s, "SET autocommit = 1")[0][4], 0x40);
    assert_eq!(
        query(&mut s, "SET @x = 1"),
        [b"\x00\x00\x00\x02\x00\x00\x00".to_vec()]
    );
    assert_eq!(
        query(&mut s, "SET sql_mode = ''"),
        [b"\x00\x00\x00\x02\x00\x00\x00".to_vec()],
        "not in the tracked list"
    );
    // USE with the state change tracked: schema first, then the state change.
    query(&mut s, "SET session_track_state_change = ON");
    assert_eq!(
        query(&mut s, "USE d1"),
        [b"\x00\x00\x00\x02\x40\x00\x00\x00\x08\x01\x03\x02d1\x02\x011".to_vec()]
    );
    // A result set drops what its statement changed; the next OK does not carry it.
    assert_eq!(query(&mut s, "SELECT @y := 2").len(), 5);
    assert_eq!(
        query(&mut s, "DO 1"),
        [b"\x00\x00\x00\x02\x00\x00\x00".to_vec()]
    );
    // The list, as written, orders the variables.
    query(
        &mut s,
        "SET session_track_system_variables = 'time_zone,autocommit'",
    );
    let ok = query(&mut s, "SET autocommit = 0, time_zone = '+03:00'").remove(0);
    let parsed = OkPacket::parse(&ok).unwrap();
    assert_eq!(parsed.status, status::SESSION_STATE_CHANGED);
    let entries = cohort_protocol::parse_session_state(parsed.session_state).unwrap();
    let kinds: Vec<u8> = entries.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [0, 0, 2]);
    assert_eq!(entries[0].data, b"\x09time_zone\x06+03:00");
    assert_eq!(entries[1].data, b"\x0aautocommit\x03OFF");
    // An error drops them too; refused settings leave nothing behind.
    let err = query(&mut s, "SET session_track_transaction_info = STATE");
    assert_eq!(&err[0][..3], b"\xff\xd3\x04", "1235");
    assert_eq!(query(&mut s, "DO 1")[0].len(), 7);
}

#[test]
fn without_the_capability_nothing_is_tracked_or_extended() {
    let (mut s, ok) = login(0, 0, Some("d1"));
    assert_eq!(ok, b"\x00\x00\x00\x02\x00\x00\x00");
    assert_eq!(
        query(&mut s, "SET autocommit = 0"),
        [b"\x00\x00\x00\x00\x00\x00\x00".to_vec()]
    );
    query(&mut s, "CREATE TABLE t (j JSON)");
    let rs = query(&mut s, "SELECT j FROM t");
    assert_eq!(&rs[1][..16], b"\x03def\x02d1\x01t\x01t\x01j\x01j\x0c");
}

#[test]
fn json_columns_carry_the_format_for_a_client_that_asked() {
    let (mut s, _) = login(0, mariadb_capability::EXTENDED_METADATA, Some("d1"));
    query(&mut s, "CREATE TABLE t (j JSON, n INT, l LONGTEXT)");
    let rs = query(
        &mut s,
        "SELECT j, n, l, JSON_OBJECT('a', 1) AS o, JSON_KEYS('{}') AS k FROM t",
    );
    assert_eq!(
        &rs[1][..23],
        b"\x03def\x02d1\x01t\x01t\x01j\x01j\x06\x01\x04json\x0c"
    );
    assert_eq!(&rs[2][..17], b"\x03def\x02d1\x01t\x01t\x01n\x01n\x00\x0c");
    assert_eq!(&rs[3][..17], b"\x03def\x02d1\x01t\x01t\x01l\x01l\x00\x0c");
    assert_eq!(
        &rs[4][..17],
        b"\x03def\x00\x00\x00\x01o\x00\x06\x01\x04json"
    );
    assert_eq!(&rs[5][..11], b"\x03def\x00\x00\x00\x01k\x00\x00");
}
