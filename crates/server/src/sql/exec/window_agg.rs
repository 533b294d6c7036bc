//! Aggregates over a sliding window frame (COUNT, SUM, AVG, MIN, MAX, BIT_AND / OR / XOR
//! `OVER (…)`).
//!
//! The frame `[lo, hi)` of successive rows only moves forward, so values enter at `hi` and
//! leave at `lo`: COUNT / SUM / AVG keep a count and a sum (exact decimal for integer and
//! decimal arguments, as the grouped aggregates), BIT_* keep a count of set bits per bit
//! position, MIN / MAX a monotonic queue of positions whose values can still become the
//! extreme. Every value enters and leaves at most once: O(rows) per partition. A frame that
//! jumps past the previous one starts over.

use crate::sql::bind::sqltype::Class;
use crate::sql::bind::sqltype::SqlType;
use crate::sql::bind::window::WinSpec;
use crate::sql::bind::{comparison_collation, AggFunc};
use crate::sql::expr::compare;
use crate::sql::expr::convert::{self, Num};
use crate::sql::expr::DIV_PRECISION_INCREMENT;
use crate::types::{Collation, Decimal, Value};
use std::collections::VecDeque;

pub struct FrameAgg {
    func: AggFunc,
    ty: SqlType,
    arg_ty: SqlType,
    coll: Collation,
    lo: usize,
    hi: usize,
    count: u64,
    exact: bool,
    dec: Decimal,
    /// The decimal sum overflowed once: the double sum is used from then on.
    overflowed: bool,
    dbl: f64,
    bits: [u32; 64],
    xor: u64,
    /// MIN / MAX: positions, their values in the order the extreme gives way.
    queue: VecDeque<usize>,
}

impl FrameAgg {
    pub fn new(func: AggFunc, s: &WinSpec) -> FrameAgg {
        let coll = if s.arg_ty.class == Class::Str {
            s.arg_ty.collation
        } else {
            comparison_collation(&s.arg_ty, &s.arg_ty)
        };
        FrameAgg {
            func,
            ty: s.ty.clone(),
            arg_ty: s.arg_ty.clone(),
            coll,
            lo: 0,
            hi: 0,
            count: 0,
            exact: matches!(s.arg_ty.class, Class::Int | Class::Decimal | Class::Null),
            dec: Decimal::ZERO,
            overflowed: false,
            dbl: 0.0,
            bits: [0; 64],
            xor: 0,
            queue: VecDeque::new(),
        }
    }

    fn reset(&mut self, at: usize) {
        self.lo = at;
        self.hi = at;
        self.count = 0;
        self.dec = Decimal::ZERO;
        self.overflowed = false;
        self.dbl = 0.0;
        self.bits = [0; 64];
        self.xor = 0;
        self.queue.clear();
    }

    /// Move the frame to `[lo, hi)` (both no smaller than the previous frame's).
    pub fn slide(&mut self, vals: &[Value], lo: usize, hi: usize) {
        if lo >= self.hi || lo < self.lo || hi < self.hi {
            self.reset(lo);
        }
        while self.hi < hi {
            self.add(vals, self.hi);
            self.hi += 1;
        }
        while self.lo < lo {
            self.remove(vals, self.lo);
            self.lo += 1;
        }
    }

    fn int_bits(v: &Value) -> u64 {
        match v {
            Value::UInt(u) => *u,
            _ => convert::to_i64(v) as u64,
        }
    }

    fn add(&mut self, vals: &[Value], at: usize) {
        let v = &vals[at];
        if v.is_null() {
            return;
        }
        self.count += 1;
        match self.func {
            AggFunc::CountStar | AggFunc::Count | AggFunc::GroupConcat => {}
            AggFunc::Sum | AggFunc::Avg => self.sum(v, false),
            AggFunc::Min | AggFunc::Max => {
                // Drop the positions this value beats for good.
                while let Some(&b) = self.queue.back() {
                    if self.better_or_equal(v, &vals[b]) {
                        self.queue.pop_back();
                    } else {
                        break;
                    }
                }
                self.queue.push_back(at);
            }
            AggFunc::BitAnd | AggFunc::BitOr => {
                let x = Self::int_bits(v);
                for (i, c) in self.bits.iter_mut().enumerate() {
                    *c += ((x >> i) & 1) as u32;
                }
            }
            AggFunc::BitXor => self.xor ^= Self::int_bits(v),
        }
    }

    fn remove(&mut self, vals: &[Value], at: usize) {
        let v = &vals[at];
        if v.is_null() {
            return;
        }
        self.count -= 1;
        match self.func {
            AggFunc::CountStar | AggFunc::Count | AggFunc::GroupConcat => {}
            AggFunc::Sum | AggFunc::Avg => self.sum(v, true),
            AggFunc::Min | AggFunc::Max => {
                if self.queue.front() == Some(&at) {
                    self.queue.pop_front();
                }
            }
            AggFunc::BitAnd | AggFunc::BitOr => {
                let x = Self::int_bits(v);
                for (i, c) in self.bits.iter_mut().enumerate() {
                    *c -= ((x >> i) & 1) as u32;
                }
            }
            AggFunc::BitXor => self.xor ^= Self::int_bits(v),
        }
    }

    /// Is `v` at least as good as `b` for MIN / MAX (so `b` can never be the extreme again)?
    fn better_or_equal(&self, v: &Value, b: &Value) -> bool {
        let o = compare::sort_cmp(v, b, self.coll);
        match self.func {
            AggFunc::Min => o != std::cmp::Ordering::Greater,
            _ => o != std::cmp::Ordering::Less,
        }
    }

    fn sum(&mut self, v: &Value, minus: bool) {
        let n = convert::to_arith_num(v);
        if self.exact && !self.overflowed {
            let d = match &n {
                Num::I(i) => Some(Decimal::from(*i)),
                Num::U(u) => Some(Decimal::from(*u)),
                Num::D(d) => Some(d.clone()),
                Num::F(_) => None,
            };
            let r = d.map(|d| {
                if minus {
                    self.dec.checked_sub(&d)
                } else {
                    self.dec.checked_add(&d)
                }
            });
            match r {
                Some(Ok(s)) => self.dec = s,
                _ => self.overflowed = true,
            }
        }
        if minus {
            self.dbl -= n.to_f64();
        } else {
            self.dbl += n.to_f64();
        }
    }

    /// The aggregate of the current frame.
    pub fn value(&self) -> Value {
        match self.func {
            AggFunc::CountStar | AggFunc::Count => Value::Int(self.count as i64),
            AggFunc::BitAnd => {
                let mut x = 0u64;
                for (i, c) in self.bits.iter().enumerate() {
                    if u64::from(*c) == self.count {
                        x |= 1 << i;
                    }
                }
                Value::UInt(x)
            }
            AggFunc::BitOr => {
                let mut x = 0u64;
                for (i, c) in self.bits.iter().enumerate() {
                    if *c > 0 {
                        x |= 1 << i;
                    }
                }
                Value::UInt(x)
            }
            AggFunc::BitXor => Value::UInt(self.xor),
            _ if self.count == 0 => Value::Null,
            AggFunc::Sum => {
                if self.exact && !self.overflowed && self.ty.class == Class::Decimal {
                    self.stored(&self.dec)
                } else {
                    Value::Double(self.dbl)
                }
            }
            AggFunc::Avg => {
                if self.exact && !self.overflowed && self.ty.class == Class::Decimal {
                    let sum = self
                        .dec
                        .rescale(self.arg_ty.decimals.min(cohort_decimal::MAX_SCALE))
                        .unwrap_or(self.dec.clone());
                    match sum.checked_div(&Decimal::from(self.count), DIV_PRECISION_INCREMENT) {
                        Ok(q) => self.stored(&q),
                        Err(_) => Value::Double(self.dbl / self.count as f64),
                    }
                } else {
                    Value::Double(self.dbl / self.count as f64)
                }
            }
            AggFunc::Min | AggFunc::Max => Value::Null,
            AggFunc::GroupConcat => Value::Null,
        }
    }

    /// A decimal result as MariaDB stores a window value: at the type's scale, saturated to
    /// its precision (see [`super::window::stored`]).
    fn stored(&self, d: &Decimal) -> Value {
        let scale = self.ty.decimals.min(cohort_decimal::MAX_SCALE);
        let d = d.rescale(scale).unwrap_or_else(|_| d.clone());
        super::window::stored(Value::Decimal(d), &self.ty)
    }

    /// MIN / MAX need the values: the extreme of the current frame.
    pub fn extreme(&self, vals: &[Value]) -> Option<Value> {
        self.queue.front().map(|&i| vals[i].clone())
    }
}
