//! STUB (being written)
use crate::error::Result;
pub struct Comparator;
impl Comparator {
    pub fn from_bytes(_spec: &[u8]) -> Result<Comparator> { todo!() }
    pub fn canonical_bytes(&self) -> &[u8] { todo!() }
    pub fn key_length(&self) -> usize { todo!() }
    pub fn wrong_length_result(&self) -> Option<i32> { todo!() }
    pub fn compare(&self, _row: &[u8]) -> i32 { todo!() }
}
