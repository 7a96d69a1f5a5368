//! Opaque pagination cursors for the four list methods.

use base64::Engine as _;
use mcp_types::jsonrpc::ErrorObject;

const PREFIX: &str = "page:";

fn encode(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{PREFIX}{offset}"))
}

fn decode(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    text.strip_prefix(PREFIX)?.parse().ok()
}

/// One page of `items` starting at `cursor`, and the cursor of the next
/// page when there is one. The cursor only hides an offset: lists are fixed
/// at build time, so every replica pages the same way.
///
/// # Errors
///
/// -32602 for a cursor this server did not issue.
pub(crate) fn page<T: Clone>(
    items: &[T],
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorObject> {
    let start = match cursor {
        None => 0,
        Some(cursor) => match decode(cursor) {
            Some(offset) if offset <= items.len() => offset,
            _ => return Err(ErrorObject::invalid_params("invalid cursor")),
        },
    };
    let end = start.saturating_add(size.max(1)).min(items.len());
    let next = (end < items.len()).then(|| encode(end));
    Ok((items[start..end].to_vec(), next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_the_list_once() {
        let items: Vec<u32> = (0..7).collect();
        let (first, next) = page(&items, None, 3).expect("first page");
        assert_eq!(first, [0, 1, 2]);
        let (second, next) = page(&items, next.as_deref(), 3).expect("second page");
        assert_eq!(second, [3, 4, 5]);
        let (third, next) = page(&items, next.as_deref(), 3).expect("third page");
        assert_eq!((third, next), (vec![6], None));
    }

    #[test]
    fn foreign_cursors_are_refused() {
        let items = [1, 2];
        for bad in ["", "zzz", "cGFnZTo5OQ", "!!"] {
            assert_eq!(page(&items, Some(bad), 1).expect_err(bad).code, -32602);
        }
    }
}
