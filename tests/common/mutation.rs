//! Protobuf-aware corruption of bytes: huge varints, libFuzzer "havoc" style mutations and
//! random protobuf-looking bytes, all from the shared seeded [`Rng`].

use super::Rng;

/// Varints that claim absurd lengths: 2^20+1 (just above the message limit), 2^31, 2^32-1, 2^32,
/// 2^63, u64::MAX, and malformed ones (eleven continuation bytes, an overlong zero).
pub fn huge_varints() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = [(1u64 << 20) + 1, 1 << 31, u32::MAX as u64, 1 << 32, 1 << 63, u64::MAX]
        .iter()
        .map(|&v| varint(v))
        .collect();
    out.push(vec![0xff; 11]);
    out.push(vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    out
}

pub fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

pub const INTERESTING: [u8; 10] = [0x00, 0x01, 0x02, 0x08, 0x0a, 0x12, 0x1a, 0x7f, 0x80, 0xff];

/// One to four random mutations, libFuzzer "havoc" style, aware of protobuf wire format.
pub fn mutate(rng: &mut Rng, seed: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut d = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = d.len();
        match rng.below(12) {
            0 if len > 0 => {
                let i = rng.below(len);
                d[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                d[i] = *rng.pick(&INTERESTING);
            }
            2 if len > 0 => {
                let i = rng.below(len);
                d[i] = rng.next() as u8;
            }
            3 => d.truncate(rng.below(len + 1)),
            4 if len > 0 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                d.drain(i..i + n);
            }
            5 => {
                let i = rng.below(len + 1);
                let bytes: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
                d.splice(i..i, bytes);
            }
            6 if len > 0 => {
                // Repeat a chunk (a field, often): repeated-field floods.
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(32));
                let chunk = d[i..i + n].to_vec();
                let times = *rng.pick(&[2usize, 10, 100, 1000]);
                let repeated: Vec<u8> = chunk.iter().copied().cycle().take(n * times).collect();
                d.splice(i..i, repeated);
            }
            7 => {
                let i = rng.below(len + 1);
                let v = rng.pick(&huge_varints()).clone();
                d.splice(i..i, v);
            }
            8 if len > 1 => {
                // Replace the byte after a length-delimited tag-looking byte by a huge length.
                let i = rng.below(len - 1);
                let v = rng.pick(&huge_varints()).clone();
                d.splice(i + 1..i + 2, v);
                d[i] = (d[i] & !0x07) | 0x02;
            }
            9 if !others.is_empty() => {
                let other = rng.pick(others);
                let i = rng.below(len + 1);
                let j = rng.below(other.len() + 1);
                d.truncate(i);
                d.extend_from_slice(&other[j..]);
            }
            10 => {
                // A length-delimited field (numbers 1..5 and unknown ones) claiming a huge length.
                let field = *rng.pick(&[1u64, 2, 3, 4, 5, 15, 16, 2047, 536_870_911]);
                d.extend(varint(field << 3 | 2));
                d.extend(rng.pick(&huge_varints()).clone());
                d.extend((0..rng.below(8)).map(|_| rng.next() as u8));
            }
            11 => {
                // Group and reserved wire types, nested.
                let wire = *rng.pick(&[3u64, 4, 6, 7]);
                let tag = varint((1 + rng.below(6) as u64) << 3 | wire);
                let i = rng.below(len + 1);
                let times = *rng.pick(&[1usize, 2, 50, 150, 10_000]);
                let repeated: Vec<u8> = tag.iter().copied().cycle().take(tag.len() * times).collect();
                d.splice(i..i, repeated);
            }
            _ => d.push(rng.next() as u8),
        }
    }
    d
}

pub fn random_bytes(rng: &mut Rng) -> Vec<u8> {
    let len = match rng.below(10) {
        0..=5 => rng.below(64),
        6..=8 => rng.below(512),
        _ => rng.below(8192),
    };
    if rng.chance(50) {
        (0..len).map(|_| rng.next() as u8).collect()
    } else {
        // Protobuf-looking: mostly tags and small numbers.
        (0..len)
            .map(|_| {
                if rng.chance(60) {
                    *rng.pick(&INTERESTING)
                } else {
                    rng.next() as u8
                }
            })
            .collect()
    }
}

pub fn rng_pick<'a>(rng: &mut Rng, items: &'a [Vec<u8>]) -> &'a [u8] {
    &items[rng.below(items.len())]
}

pub fn seeds_of(n: usize, mut make: impl FnMut() -> Vec<u8>) -> Vec<Vec<u8>> {
    (0..n).map(|_| make()).collect()
}
