//! SQL values and column types: the vocabulary shared by `sql`, `storage` and `session`.
//!
//! A [`Value`] carries no type of its own beyond its variant; the column's [`DataType`] says
//! how it is compared, stored and sent. Strings and binary strings are both `Value::Bytes`:
//! whether `'a' = 'A'` holds is a property of the column's collation, not of the bytes.

pub mod collation;
pub mod collation_latin1;
pub mod collation_uca;
mod collation_uca400_table;
mod collation_uca520_table;
mod datatype;
pub mod enumset;
pub mod latin1;
mod latin1_weights;
pub mod raw_text;
pub mod text_charset;
mod value;

pub use collation::Collation;
pub use datatype::DataType;
pub use datatype::IntDisplay;
pub use value::{Date, DateTime, Decimal, Value};
