//! The streams of a shard's body: numbers written as LEB128 varints, and a cursor that reads
//! them back and says which stream ran short, so a truncated shard is named, never a panic.

/// Appends `value` as a LEB128 varint.
pub(super) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// A cursor over one stream of a shard's body.
pub(super) struct Stream<'a> {
    name: &'static str,
    bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Stream<'a> {
    pub(super) fn new(name: &'static str, bytes: &'a [u8]) -> Stream<'a> {
        Stream { name, bytes, at: 0 }
    }

    pub(super) fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| format!("the {} stream ends early", self.name))?;
        self.at += 1;
        Ok(b)
    }

    pub(super) fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("a number in the {} stream is too long", self.name))
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| format!("the {} stream ends early", self.name))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    pub(super) fn finished(&self) -> bool {
        self.at == self.bytes.len()
    }
}
