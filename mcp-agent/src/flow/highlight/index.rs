//! The table of the leaves' 8-byte windows, the filter in front of it,
//! and the reading of a text window by window.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};

use super::leaves::Leaf;
use super::MIN_RUN;

/// The table's hasher: windows are 8 bytes already, so a key drawn once
/// per scan is mixed in and the bits stirred (the SplitMix64 finaliser).
/// A plain multiply would leave the low bits, which pick the bucket, to
/// the window's first bytes alone, so that windows sharing a start pile
/// into one bucket; the key keeps text from being written to do so.
#[derive(Clone, Copy)]
struct GramKey(u64);

impl GramKey {
    fn random() -> Self {
        Self(RandomState::new().hash_one(0u64))
    }
}

impl BuildHasher for GramKey {
    type Hasher = GramHasher;

    fn build_hasher(&self) -> GramHasher {
        GramHasher(self.0)
    }
}

struct GramHasher(u64);

impl Hasher for GramHasher {
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_u64(&mut self, gram: u64) {
        self.0 ^= gram;
    }
}

/// The filter in front of the table: one bit per slot, set for the slot
/// of each window of the leaves, with many slots per window so that a
/// miss rarely costs a look-up; for the few leaves of a call it is
/// 32 KiB, small enough for the fastest cache.
pub(super) struct Filter {
    bits: Vec<u64>,
    shift: u32,
}

impl Filter {
    fn new(windows: usize) -> Self {
        let slots = (windows * 64).next_power_of_two().clamp(1 << 18, 1 << 24);
        Self {
            bits: vec![0; slots / 64],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    fn slot(&self, gram: u64) -> usize {
        (gram.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    fn insert(&mut self, gram: u64) {
        let slot = self.slot(gram);
        if let Some(word) = self.bits.get_mut(slot >> 6) {
            *word |= 1 << (slot & 63);
        }
    }

    fn may_hold(&self, gram: u64) -> bool {
        let slot = self.slot(gram);
        self.bits
            .get(slot >> 6)
            .is_some_and(|word| word >> (slot & 63) & 1 != 0)
    }
}

/// The window starting at `window[0]`, as a number.
fn gram(window: &[u8]) -> u64 {
    window.try_into().map_or(0, u64::from_le_bytes)
}

/// Calls `hit` with the start and number of each window of `bytes` that
/// `filter` may hold, in order, until it returns `false`; returns whether
/// every window was read. Windows are cut from two words at a time, eight
/// to a word, rather than loaded one by one.
pub(super) fn each_candidate(
    filter: &Filter,
    bytes: &[u8],
    mut hit: impl FnMut(usize, u64) -> bool,
) -> bool {
    let mut chunks = bytes.chunks_exact(MIN_RUN);
    let Some(first) = chunks.next() else {
        return true;
    };
    let mut word = gram(first);
    let mut base = 0;
    for chunk in chunks {
        let next = gram(chunk);
        for k in 0..MIN_RUN {
            let window = if k == 0 {
                word
            } else {
                word >> (8 * k) | next << (64 - 8 * k)
            };
            if filter.may_hold(window) && !hit(base + k, window) {
                return false;
            }
        }
        word = next;
        base += MIN_RUN;
    }
    // The windows that start in the last whole word.
    for (k, window) in bytes[base..].windows(MIN_RUN).enumerate() {
        let window = gram(window);
        if filter.may_hold(window) && !hit(base + k, window) {
            return false;
        }
    }
    true
}

/// Slots of the cache of windows met lately in an item.
pub(super) const SEEN_SLOTS: usize = 1 << 10;

/// Links' common parts: windows made only of these say nothing.
pub(super) const SCHEMES: [&str; 3] = ["https://", "http://", "www."];

/// The places of one window in the leaves: the first in each leaf.
#[derive(Default)]
struct Postings {
    /// The item (counted from 1) in which the window was last met.
    met_in: usize,
    /// Leaf and place.
    places: Vec<(usize, usize)>,
}

/// Each 8-byte window of the leaves, with the first place it occurs in
/// each leaf. Windows wholly inside a scheme or `www.` are left out: a
/// link that matches further is still found through its other windows,
/// and extended back over them.
pub(super) struct Index {
    table: HashMap<u64, Postings, GramKey>,
}

impl Index {
    /// The index of `leaves`, and its filter.
    pub(super) fn new(leaves: &[Leaf]) -> (Self, Filter) {
        let mut filter = Filter::new(leaves.iter().map(|l| l.text.len()).sum());
        let mut index = Self {
            table: HashMap::with_hasher(GramKey::random()),
        };
        for (n, leaf) in leaves.iter().enumerate() {
            let noise = scheme_bytes(&leaf.text);
            for (place, window) in leaf.text.as_bytes().windows(MIN_RUN).enumerate() {
                if noise[place..place + MIN_RUN].iter().all(|&x| x) {
                    continue;
                }
                let gram = gram(window);
                let postings = &mut index.table.entry(gram).or_default().places;
                if postings.last().is_none_or(|&(leaf, _)| leaf != n) {
                    postings.push((n, place));
                    filter.insert(gram);
                }
            }
        }
        (index, filter)
    }

    /// The places of `gram` if it was not met yet in `item`.
    pub(super) fn first_meeting(&mut self, gram: u64, item: usize) -> &[(usize, usize)] {
        match self.table.get_mut(&gram) {
            Some(postings) if postings.met_in != item => {
                postings.met_in = item;
                &postings.places
            }
            _ => &[],
        }
    }
}

/// Which bytes of `text` belong to a scheme or `www.`.
fn scheme_bytes(text: &str) -> Vec<bool> {
    let mut noise = vec![false; text.len()];
    for scheme in SCHEMES {
        for (at, _) in text.match_indices(scheme) {
            noise[at..at + scheme.len()]
                .iter_mut()
                .for_each(|x| *x = true);
        }
    }
    noise
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cut_from_words_are_the_windows() {
        let text: Vec<u8> = (0..64u8).map(|i| b'a' + i % 26).collect();
        for len in 0..text.len() {
            let bytes = &text[..len];
            let mut filter = Filter::new(len);
            let expected: Vec<(usize, u64)> = bytes
                .windows(MIN_RUN)
                .enumerate()
                .map(|(at, w)| (at, gram(w)))
                .collect();
            expected.iter().for_each(|&(_, g)| filter.insert(g));
            let mut got = Vec::new();
            assert!(each_candidate(&filter, bytes, |at, g| {
                got.push((at, g));
                true
            }));
            assert_eq!(got, expected, "length {len}");
        }
    }

    #[test]
    fn a_refused_window_stops_the_reading() {
        let bytes = b"abcdefghijklmnopqrstuvwxyz";
        let mut filter = Filter::new(bytes.len());
        bytes.windows(MIN_RUN).for_each(|w| filter.insert(gram(w)));
        let mut seen = 0;
        assert!(!each_candidate(&filter, bytes, |at, _| {
            seen += 1;
            at < 10
        }));
        assert_eq!(seen, 11);
    }
}
