//! The JSON Canonicalization Scheme (RFC 8785): one byte string per JSON
//! value, whatever the order of its keys, the spelling of its numbers or
//! the escapes of its strings.
//!
//! - Object keys are sorted by their UTF-16 code units.
//! - Numbers are IEEE 754 doubles written as ECMAScript writes them
//!   (`1.0` is `1`, `1e21` is `1e+21`, `0.0000001` is `1e-7`); integers
//!   beyond 2^53 become the nearest double, as in any JCS implementation.
//! - Strings escape only `"`, `\` and the control characters, with the short
//!   forms `\b \t \n \f \r` and lower-case `\u00xx` for the rest.
//! - No whitespace.

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// The canonical form of `value`.
pub fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_value(value, &mut out);
    out
}

/// SHA-256 of the canonical form of `value`, as 64 lower-case hex digits.
pub fn digest(value: &Value) -> String {
    let hash = Sha256::digest(canonical(value).as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(key, out);
        out.push(':');
        write_value(value, out);
    }
    out.push('}');
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A number as ECMAScript's `Number.prototype.toString` writes the double
/// nearest to it.
fn number(n: &Number) -> String {
    let Some(f) = n.as_f64() else {
        return "null".to_owned();
    };
    if f == 0.0 {
        return "0".to_owned();
    }
    // `{:e}` gives the shortest digits that read back as the same double.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let k = digits.len() as i64;
    let n = exponent + 1;
    let sign = if f < 0.0 { "-" } else { "" };
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(n as usize);
        format!("{int}.{frac}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let e = n - 1;
        let e_sign = if e < 0 { "-" } else { "+" };
        format!("{first}{rest}e{e_sign}{}", e.abs())
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn num(text: &str) -> String {
        let value: Value = serde_json::from_str(text).expect("a JSON number");
        canonical(&value)
    }

    /// RFC 8785 appendix B (IEEE 754 doubles and their JCS form, given here
    /// as JSON text that parses to that double), and the ECMAScript rules
    /// at their edges.
    #[test]
    fn numbers_are_written_as_ecmascript_writes_them() {
        let table = [
            ("0", "0"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("5e-324", "5e-324"),
            ("-5e-324", "-5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("-1.7976931348623157e308", "-1.7976931348623157e+308"),
            ("9007199254740992", "9007199254740992"),
            ("-9007199254740992", "-9007199254740992"),
            ("295147905179352830000", "295147905179352830000"),
            ("9.999999999999997e22", "9.999999999999997e+22"),
            ("1e23", "1e+23"),
            ("1.0000000000000001e23", "1.0000000000000001e+23"),
            ("999999999999999700000", "999999999999999700000"),
            ("999999999999999900000", "999999999999999900000"),
            ("1e21", "1e+21"),
            ("9.999999999999997e-7", "9.999999999999997e-7"),
            ("0.000001", "0.000001"),
            ("1e-7", "1e-7"),
            ("333333333.3333333", "333333333.3333333"),
            ("333333333.33333329", "333333333.3333333"),
            ("1E30", "1e+30"),
            ("4.50", "4.5"),
            ("2e-3", "0.002"),
            ("0.000001000", "0.000001"),
            ("100", "100"),
            ("1.0", "1"),
            ("-12.5", "-12.5"),
            ("123456789012345680000", "123456789012345680000"),
            ("18446744073709551615", "18446744073709552000"),
            ("9007199254740993", "9007199254740992"),
        ];
        for (input, expected) in table {
            assert_eq!(num(input), expected, "{input}");
        }
    }

    /// RFC 8785 section 3.2.2.2: only `"`, `\` and control characters are
    /// escaped, with the short forms where JSON has them.
    #[test]
    fn strings_escape_only_what_json_requires() {
        let value = json!("\u{20ac}$\u{000F}\u{000a}A'\u{0042}\u{0022}\u{005c}\\\"/");
        assert_eq!(canonical(&value), r#""€$\u000f\nA'B\"\\\\\"/""#);
        let value = json!("\u{8}\t\n\u{c}\r\u{1}\u{1f}\u{7f}\u{2028}<>&");
        assert_eq!(
            canonical(&value),
            "\"\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\u{2028}<>&\""
        );
    }

    /// RFC 8785 section 3.2.3: keys sorted by UTF-16 code units, so the
    /// emoji (a surrogate pair, 0xD83D..) sorts before U+FB33.
    #[test]
    fn keys_sort_by_utf16_code_units() {
        let value = json!({
            "\u{20ac}": "Euro Sign",
            "\r": "Carriage Return",
            "\u{fb33}": "Hebrew Letter Dalet With Dagesh",
            "1": "One",
            "\u{1f600}": "Emoji: Grinning Face",
            "\u{0080}": "Control",
            "\u{00f6}": "Latin Small Letter O With Diaeresis"
        });
        let order: Vec<&str> = [
            "\r",
            "1",
            "\u{0080}",
            "\u{00f6}",
            "\u{20ac}",
            "\u{1f600}",
            "\u{fb33}",
        ]
        .to_vec();
        let text = canonical(&value);
        let positions: Vec<usize> = order
            .iter()
            .map(|k| text.find(&canonical(&json!(k))).expect("key present"))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    }

    /// RFC 8785 section 3.2.4's example, whose canonical form is given
    /// byte for byte.
    #[test]
    fn the_rfc_example_canonicalises_exactly() {
        let value: Value = serde_json::from_str(
            r#"{
              "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
              "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
              "literals": [null, true, false]
            }"#,
        )
        .expect("json");
        assert_eq!(
            canonical(&value),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    #[test]
    fn nesting_and_whitespace() {
        let a: Value =
            serde_json::from_str(r#"{ "b" : [ 1 , { "z":1, "a":2 } ], "a" : {} }"#).expect("json");
        assert_eq!(canonical(&a), r#"{"a":{},"b":[1,{"a":2,"z":1}]}"#);
        assert_eq!(
            digest(&json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        assert_eq!(digest(&a).len(), 64);
    }
}
