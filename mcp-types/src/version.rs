//! Protocol versions, the era each belongs to, and version selection.
//!
//! Versions are dates written `YYYY-MM-DD`. Versions before 2026-07-28 are
//! the *legacy* era, negotiated once by the `initialize` handshake; from
//! 2026-07-28 on is the *modern* era, where every request names its version
//! in `_meta`.
//!
//! ```
//! use mcp_types::version::{negotiate, Era, ProtocolVersion};
//!
//! let v = ProtocolVersion::parse("2025-06-18");
//! assert_eq!(v.era(), Some(Era::Legacy));
//! let client = [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25];
//! let server = [ProtocolVersion::V2025_11_25, ProtocolVersion::V2025_06_18];
//! assert_eq!(negotiate(&client, &server), Some(ProtocolVersion::V2025_11_25));
//! ```

use std::cmp::Ordering;
use std::convert::Infallible;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A protocol version.
///
/// Known versions have their own variant; any other string is kept in
/// [`ProtocolVersion::Other`]. Equality, hashing and ordering all go by the
/// version string, so `Other("2025-11-25")` equals
/// [`ProtocolVersion::V2025_11_25`] (parsing never produces the former).
/// Ordering is by the string, which is chronological for date-shaped
/// versions.
#[derive(Debug, Clone)]
pub enum ProtocolVersion {
    /// 2024-11-05, the first published revision (legacy).
    V2024_11_05,
    /// 2025-03-26 (legacy).
    V2025_03_26,
    /// 2025-06-18 (legacy).
    V2025_06_18,
    /// 2025-11-25, the last legacy revision.
    V2025_11_25,
    /// 2026-07-28, the first modern revision.
    V2026_07_28,
    /// A version this crate does not know.
    Other(String),
}

/// The two eras of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Era {
    /// Up to 2025-11-25: one `initialize` handshake fixes version and
    /// capabilities for a session.
    Legacy,
    /// From 2026-07-28: stateless, every request carries version and
    /// capabilities in `_meta`.
    Modern,
}

impl ProtocolVersion {
    /// The newest version this crate knows.
    pub const LATEST: Self = Self::V2026_07_28;
    /// The newest legacy version, the one to offer in `initialize`.
    pub const LATEST_LEGACY: Self = Self::V2025_11_25;
    /// The first version of the modern era.
    pub const FIRST_MODERN: Self = Self::V2026_07_28;
    /// Every known version, oldest first.
    pub const KNOWN: [Self; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];

    /// Reads a version string; never fails, unknown strings become
    /// [`ProtocolVersion::Other`].
    pub fn parse(s: &str) -> Self {
        Self::KNOWN
            .into_iter()
            .find(|v| v.as_str() == s)
            .unwrap_or_else(|| Self::Other(s.to_owned()))
    }

    /// The version string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
            Self::Other(s) => s,
        }
    }

    /// Whether this crate knows the version.
    pub fn is_known(&self) -> bool {
        Self::KNOWN.iter().any(|v| v.as_str() == self.as_str())
    }

    /// The era of the version. Unknown versions shaped like a date are
    /// placed by that date; any other unknown string has no era.
    pub fn era(&self) -> Option<Era> {
        let s = self.as_str();
        if !is_date(s) {
            return None;
        }
        Some(if s < Self::FIRST_MODERN.as_str() {
            Era::Legacy
        } else {
            Era::Modern
        })
    }
}

/// Whether `s` is shaped `NNNN-NN-NN` with ASCII digits.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// The highest version both sides list, or `None` if they share none.
///
/// This is the modern rule: the client reads `supportedVersions` from
/// `server/discover` (or `data.supported` from a -32022 error) and picks
/// the newest version it also speaks.
pub fn negotiate(
    client_supported: &[ProtocolVersion],
    server_supported: &[ProtocolVersion],
) -> Option<ProtocolVersion> {
    client_supported
        .iter()
        .filter(|v| server_supported.contains(v))
        .max()
        .cloned()
}

/// The version a legacy server answers `initialize` with.
///
/// A server that supports the requested version must answer with that
/// version; otherwise it answers with the newest legacy version it
/// supports, and the client decides whether to go on. `None` when the
/// server supports no legacy version at all.
pub fn answer_initialize(
    requested: &ProtocolVersion,
    server_supported: &[ProtocolVersion],
) -> Option<ProtocolVersion> {
    if server_supported.contains(requested) {
        return Some(requested.clone());
    }
    server_supported
        .iter()
        .filter(|v| v.era() == Some(Era::Legacy))
        .max()
        .cloned()
}

impl PartialEq for ProtocolVersion {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ProtocolVersion {}

impl Hash for ProtocolVersion {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for ProtocolVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ProtocolVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProtocolVersion {
    type Err = Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::parse(s))
    }
}

impl From<&str> for ProtocolVersion {
    fn from(s: &str) -> Self {
        Self::parse(s)
    }
}

impl From<String> for ProtocolVersion {
    fn from(s: String) -> Self {
        match Self::parse(&s) {
            Self::Other(_) => Self::Other(s),
            known => known,
        }
    }
}

impl From<ProtocolVersion> for String {
    fn from(v: ProtocolVersion) -> Self {
        match v {
            ProtocolVersion::Other(s) => s,
            known => known.as_str().to_owned(),
        }
    }
}

impl PartialEq<str> for ProtocolVersion {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ProtocolVersion {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    use ProtocolVersion as V;

    #[test]
    fn known_versions_round_trip() {
        for v in V::KNOWN {
            assert_eq!(V::parse(v.as_str()), v);
            assert!(!matches!(V::parse(v.as_str()), V::Other(_)));
            assert!(v.is_known());
            assert_eq!(v.to_string(), v.as_str());
        }
        assert_eq!(V::LATEST.as_str(), "2026-07-28");
        assert_eq!(V::LATEST_LEGACY.as_str(), "2025-11-25");
    }

    #[test]
    fn known_list_is_sorted() {
        assert!(V::KNOWN.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(V::KNOWN.iter().max(), Some(&V::LATEST));
    }

    #[test]
    fn unknown_versions_are_kept() {
        let v = V::parse("2027-01-01");
        assert_eq!(v, V::Other("2027-01-01".into()));
        assert!(!v.is_known());
        assert_eq!(v.as_str(), "2027-01-01");
        assert!(v > V::LATEST);
        assert_eq!(String::from(v), "2027-01-01");
        assert_eq!(V::Other("2025-11-25".into()), V::V2025_11_25);
    }

    #[test]
    fn eras() {
        assert_eq!(V::V2024_11_05.era(), Some(Era::Legacy));
        assert_eq!(V::V2025_11_25.era(), Some(Era::Legacy));
        assert_eq!(V::V2026_07_28.era(), Some(Era::Modern));
        assert_eq!(V::parse("2026-12-01").era(), Some(Era::Modern));
        assert_eq!(V::parse("2026-07-27").era(), Some(Era::Legacy));
        assert_eq!(V::parse("draft").era(), None);
        assert_eq!(V::parse("2026-7-28").era(), None);
        assert_eq!(V::parse("").era(), None);
    }

    #[test]
    fn serde_as_string() {
        assert_eq!(
            serde_json::to_value(V::V2025_03_26).ok(),
            Some(json!("2025-03-26"))
        );
        let v: V = serde_json::from_value(json!("2026-07-28")).expect("string");
        assert!(matches!(v, V::V2026_07_28));
        let v: V = serde_json::from_value(json!("future")).expect("string");
        assert!(matches!(v, V::Other(ref s) if s == "future"));
        assert!(serde_json::from_value::<V>(json!(2026)).is_err());
    }

    #[test]
    fn negotiate_picks_highest_common() {
        let client = [V::V2025_06_18, V::V2026_07_28, V::V2025_11_25];
        let server = [V::V2025_11_25, V::V2025_06_18, V::V2024_11_05];
        assert_eq!(negotiate(&client, &server), Some(V::V2025_11_25));
        assert_eq!(negotiate(&client, &[V::V2024_11_05]), None);
        assert_eq!(negotiate(&[], &server), None);
        let future = V::parse("2027-01-01");
        assert_eq!(
            negotiate(&[future.clone(), V::LATEST], &[V::LATEST, future.clone()]),
            Some(future)
        );
    }

    #[test]
    fn initialize_answer() {
        let server = [V::V2025_06_18, V::V2025_11_25, V::V2026_07_28];
        assert_eq!(
            answer_initialize(&V::V2025_06_18, &server),
            Some(V::V2025_06_18)
        );
        assert_eq!(
            answer_initialize(&V::V2024_11_05, &server),
            Some(V::V2025_11_25)
        );
        assert_eq!(
            answer_initialize(&V::parse("1999-01-01"), &[V::V2026_07_28]),
            None
        );
    }

    fn version() -> impl Strategy<Value = V> {
        prop_oneof![
            (0usize..V::KNOWN.len()).prop_map(|i| V::KNOWN[i].clone()),
            "20[0-9]{2}-[01][0-9]-[0-3][0-9]".prop_map(V::from),
        ]
    }

    proptest! {
        #[test]
        fn negotiated_version_is_common_and_maximal(
            client in prop::collection::vec(version(), 0..6),
            server in prop::collection::vec(version(), 0..6),
        ) {
            match negotiate(&client, &server) {
                Some(v) => {
                    prop_assert!(client.contains(&v) && server.contains(&v));
                    prop_assert!(client.iter().filter(|c| server.contains(c)).all(|c| *c <= v));
                }
                None => prop_assert!(client.iter().all(|c| !server.contains(c))),
            }
        }

        #[test]
        fn parse_display_round_trip(s in ".*") {
            let v = V::parse(&s);
            prop_assert_eq!(v.to_string(), s.clone());
            prop_assert_eq!(V::from(s.clone()), v);
        }
    }
}
