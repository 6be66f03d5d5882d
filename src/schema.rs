//! STUB (being written)
use crate::error::Result;
pub struct Schema;
impl Schema {
    pub fn from_bytes(_spec: &[u8]) -> Result<Schema> { todo!() }
    pub fn canonical_bytes(&self) -> Vec<u8> { todo!() }
    pub fn key_length(&self) -> usize { todo!() }
    pub fn encode_row_message(&self, _row: &[u8]) -> Result<Vec<u8>> { todo!() }
    pub fn decode_to_row_message(&self, _key: &[u8]) -> Result<Vec<u8>> { todo!() }
}
