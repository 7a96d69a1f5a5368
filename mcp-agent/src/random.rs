//! Sixteen random bytes from the system's source, written as 32
//! lowercase hex digits: the form of an envelope's nonce and of a saved
//! conversation's id.

use std::fmt;

/// Sixteen bytes from the system's random source.
pub(crate) fn bytes() -> Result<[u8; 16], getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` as 32 lowercase hex digits.
pub(crate) fn write_hex(bytes: &[u8; 16], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    bytes.iter().try_for_each(|b| write!(f, "{b:02x}"))
}

/// The bytes `text` writes, when it is exactly 32 lowercase hex digits.
pub(crate) fn parse_hex(text: &str) -> Option<[u8; 16]> {
    let digits = text.as_bytes();
    if digits.len() != 32 {
        return None;
    }
    let digit = |d: u8| match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        _ => None,
    };
    let mut bytes = [0u8; 16];
    for (byte, pair) in bytes.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Hex([u8; 16]);

    impl fmt::Display for Hex {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_hex(&self.0, f)
        }
    }

    #[test]
    fn hex_round_trips_and_only_32_lowercase_digits_parse() {
        let bytes = bytes().expect("random");
        let text = Hex(bytes).to_string();
        assert_eq!(text.len(), 32);
        assert_eq!(parse_hex(&text), Some(bytes));
        let refused = [
            "",
            "0123456789abcdef0123456789abcde",
            "0123456789abcdef0123456789abcdef0",
            "0123456789abcdef0123456789abcdeg",
            "0123456789ABCDEF0123456789abcdef",
            "../0123456789abcdef0123456789abc",
            "0123456789abcdef0123456789abcd\u{e9}",
        ];
        for text in refused {
            assert_eq!(parse_hex(text), None, "{text:?}");
        }
    }
}
