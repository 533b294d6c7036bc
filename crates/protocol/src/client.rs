//! Client side: a decoder that walks the payloads of one response (for the bench).
//!
//! Feed every payload of a response to [`ResponseDecoder::decode`] until
//! [`ResponseDecoder::is_done`]. The shapes it follows (EOF mode, no DEPRECATE_EOF):
//!
//! ```text
//! query / execute:  OK | ERR | column count, N column defs, EOF, rows…, EOF (or ERR)
//! prepare:          ERR | PREPARE_OK, [P param defs, EOF], [N column defs, EOF]
//! ```
//!
//! `MORE_RESULTS_EXISTS` in a final OK / EOF starts another result. Column definitions and
//! rows come back as raw payloads: parse them only when needed with
//! [`crate::ColumnDefinition::parse`], [`crate::parse_text_row`], [`crate::parse_binary_row`].
//!
//! The request side is [`crate::Command::encode`], [`crate::encode_query`],
//! [`crate::encode_prepare`], [`crate::encode_execute`] and
//! [`crate::HandshakeResponse::native`].

use crate::codec::Reader;
use crate::error::{ProtocolError, Result};
use crate::flags::status;
use crate::response::{
    is_eof_packet, EofPacket, ErrPacket, OkPacket, PrepareOk, ERR_HEADER, OK_HEADER,
};

/// One step of a response.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ResponseEvent<'a> {
    Ok(OkPacket<'a>),
    Err(ErrPacket<'a>),
    /// A result set starts with this many columns.
    ColumnCount(u64),
    /// A column definition payload.
    Column(&'a [u8]),
    /// The EOF after the column definitions.
    ColumnsEnd(EofPacket),
    /// A row payload (text or binary, depending on the request).
    Row(&'a [u8]),
    /// The EOF after the last row.
    RowsEnd(EofPacket),
    PrepareOk(PrepareOk),
    /// A parameter definition payload (after PREPARE_OK).
    Param(&'a [u8]),
    /// The EOF after the parameter definitions.
    ParamsEnd(EofPacket),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Start,
    Columns { left: u64 },
    ColumnsEof,
    Rows,
    PrepareStart,
    Params { left: u16, columns: u16 },
    ParamsEof { columns: u16 },
    PrepareColumns { left: u16 },
    PrepareColumnsEof,
    Done,
}

/// Follows one response, payload by payload.
#[derive(Clone, Debug)]
pub struct ResponseDecoder {
    state: State,
}

impl Default for ResponseDecoder {
    fn default() -> Self {
        ResponseDecoder::new()
    }
}

impl ResponseDecoder {
    /// For the response to COM_QUERY, COM_STMT_EXECUTE, COM_PING, COM_INIT_DB, ….
    pub fn new() -> ResponseDecoder {
        ResponseDecoder {
            state: State::Start,
        }
    }

    /// For the response to COM_STMT_PREPARE.
    pub fn for_prepare() -> ResponseDecoder {
        ResponseDecoder {
            state: State::PrepareStart,
        }
    }

    /// True once the response is complete.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Decodes the next payload of the response.
    pub fn decode<'a>(&mut self, payload: &'a [u8]) -> Result<ResponseEvent<'a>> {
        match self.state {
            State::Start => self.first_packet(payload),
            State::Columns { left } => {
                self.state = if left > 1 {
                    State::Columns { left: left - 1 }
                } else {
                    State::ColumnsEof
                };
                Ok(ResponseEvent::Column(payload))
            }
            State::ColumnsEof => {
                let eof = EofPacket::parse(payload)?;
                self.state = State::Rows;
                Ok(ResponseEvent::ColumnsEnd(eof))
            }
            State::Rows => self.row_or_end(payload),
            State::PrepareStart => self.prepare_ok(payload),
            State::Params { left, columns } => {
                self.state = if left > 1 {
                    State::Params {
                        left: left - 1,
                        columns,
                    }
                } else {
                    State::ParamsEof { columns }
                };
                Ok(ResponseEvent::Param(payload))
            }
            State::ParamsEof { columns } => {
                let eof = EofPacket::parse(payload)?;
                self.state = prepare_columns_state(columns);
                Ok(ResponseEvent::ParamsEnd(eof))
            }
            State::PrepareColumns { left } => {
                self.state = if left > 1 {
                    State::PrepareColumns { left: left - 1 }
                } else {
                    State::PrepareColumnsEof
                };
                Ok(ResponseEvent::Column(payload))
            }
            State::PrepareColumnsEof => {
                let eof = EofPacket::parse(payload)?;
                self.state = State::Done;
                Ok(ResponseEvent::ColumnsEnd(eof))
            }
            State::Done => Err(ProtocolError::Malformed {
                what: "packet after the end of the response",
            }),
        }
    }

    fn first_packet<'a>(&mut self, payload: &'a [u8]) -> Result<ResponseEvent<'a>> {
        match payload.first() {
            Some(&OK_HEADER) => {
                let ok = OkPacket::parse(payload)?;
                self.finish(ok.status);
                Ok(ResponseEvent::Ok(ok))
            }
            Some(&ERR_HEADER) => {
                self.state = State::Done;
                Ok(ResponseEvent::Err(ErrPacket::parse(payload)?))
            }
            _ => {
                let count = Reader::new(payload).lenenc_int("column count")?;
                if count == 0 {
                    return Err(ProtocolError::Malformed {
                        what: "column count",
                    });
                }
                self.state = State::Columns { left: count };
                Ok(ResponseEvent::ColumnCount(count))
            }
        }
    }

    fn row_or_end<'a>(&mut self, payload: &'a [u8]) -> Result<ResponseEvent<'a>> {
        if payload.first() == Some(&ERR_HEADER) {
            self.state = State::Done;
            return Ok(ResponseEvent::Err(ErrPacket::parse(payload)?));
        }
        if is_eof_packet(payload) {
            let eof = EofPacket::parse(payload)?;
            self.finish(eof.status);
            return Ok(ResponseEvent::RowsEnd(eof));
        }
        Ok(ResponseEvent::Row(payload))
    }

    fn prepare_ok<'a>(&mut self, payload: &'a [u8]) -> Result<ResponseEvent<'a>> {
        if payload.first() == Some(&ERR_HEADER) {
            self.state = State::Done;
            return Ok(ResponseEvent::Err(ErrPacket::parse(payload)?));
        }
        let ok = PrepareOk::parse(payload)?;
        self.state = if ok.num_params > 0 {
            State::Params {
                left: ok.num_params,
                columns: ok.num_columns,
            }
        } else {
            prepare_columns_state(ok.num_columns)
        };
        Ok(ResponseEvent::PrepareOk(ok))
    }

    /// After a final OK / EOF: done, unless another result follows.
    fn finish(&mut self, status_flags: u16) {
        self.state = if status_flags & status::MORE_RESULTS_EXISTS != 0 {
            State::Start
        } else {
            State::Done
        };
    }
}

fn prepare_columns_state(columns: u16) -> State {
    if columns > 0 {
        State::PrepareColumns { left: columns }
    } else {
        State::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::{charset, ColumnDefinition, ColumnType};
    use crate::packet::PacketReader;
    use crate::value::Cell;
    use crate::PacketWriter;

    fn events(bytes: &[u8], mut decoder: ResponseDecoder) -> Vec<String> {
        let mut reader = PacketReader::new(1 << 20);
        reader.set_next_seq(1);
        reader.feed(bytes);
        let mut out = Vec::new();
        while let Some(p) = reader.next_packet().unwrap() {
            let e = decoder.decode(p.payload).unwrap();
            out.push(format!("{e:?}").split('(').next().unwrap().to_string());
        }
        assert!(decoder.is_done());
        out
    }

    #[test]
    fn follows_a_binary_result_set() {
        let cols = [ColumnDefinition::simple(
            "c",
            ColumnType::STRING,
            charset::UTF8MB4_GENERAL_CI,
            480,
        )];
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_result_set_start(&cols, 3);
        w.write_binary_row(&cols, &[Cell::str("x")]).unwrap();
        w.write_binary_row(&cols, &[Cell::Null]).unwrap();
        w.write_result_set_end(0, 3);
        assert_eq!(
            events(w.bytes(), ResponseDecoder::new()),
            [
                "ColumnCount",
                "Column",
                "ColumnsEnd",
                "Row",
                "Row",
                "RowsEnd"
            ]
        );
    }

    #[test]
    fn follows_a_prepare_response() {
        let cols = [ColumnDefinition::simple(
            "c",
            ColumnType::STRING,
            charset::UTF8MB4_GENERAL_CI,
            480,
        )];
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_prepare_ok(3, 2, &cols, 0, 2);
        assert_eq!(
            events(w.bytes(), ResponseDecoder::for_prepare()),
            [
                "PrepareOk",
                "Param",
                "Param",
                "ParamsEnd",
                "Column",
                "ColumnsEnd"
            ]
        );
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_prepare_ok(1, 0, &[], 0, 2);
        assert_eq!(
            events(w.bytes(), ResponseDecoder::for_prepare()),
            ["PrepareOk"]
        );
    }

    #[test]
    fn ok_and_err_end_the_response() {
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_ok(&OkPacket::new(2));
        assert_eq!(events(w.bytes(), ResponseDecoder::new()), ["Ok"]);
        let mut w = PacketWriter::new();
        w.set_seq(1);
        w.write_err(crate::ErrorCode::NoSuchTable, "Table 'x.y' doesn't exist");
        assert_eq!(events(w.bytes(), ResponseDecoder::for_prepare()), ["Err"]);
        let mut d = ResponseDecoder::new();
        d.decode(&[0, 0, 0, 2, 0, 0, 0]).unwrap();
        assert!(d.decode(&[0, 0, 0, 2, 0, 0, 0]).is_err());
    }

    #[test]
    fn more_results_restart_the_decoder() {
        let mut d = ResponseDecoder::new();
        d.decode(&[0, 0, 0, 0x0A, 0, 0, 0]).unwrap();
        assert!(!d.is_done());
        d.decode(&[0, 0, 0, 0x02, 0, 0, 0]).unwrap();
        assert!(d.is_done());
    }
}
