//! Reading the first form of an HTML page: its action, its method and its
//! `<input>` fields. Enough for server-rendered sign-in and consent pages,
//! which is all it is for; it knows nothing of scripts.

/// A form as a browser would submit it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Form {
    /// The `action` attribute, possibly relative; empty when absent.
    pub(super) action: String,
    /// The `method` attribute in lower case; `get` when absent.
    pub(super) method: String,
    /// Each named `<input>` as `(name, type, value)`, in page order.
    pub(super) inputs: Vec<(String, String, String)>,
}

impl Form {
    /// The fields a person signing in as `login` would send: the text they
    /// type into the field named `login`, and every other field as the page
    /// filled it in (hidden ones included), empty when it did not.
    pub(super) fn fill(&self, login: &str) -> Vec<(String, String)> {
        self.inputs
            .iter()
            .filter(|(_, kind, _)| !matches!(kind.as_str(), "submit" | "button" | "reset"))
            .map(|(name, _, value)| {
                let value = if name == "login" { login } else { value };
                (name.clone(), value.to_owned())
            })
            .collect()
    }
}

/// The first `<form>` in `html`, or `None` when it has none.
pub(super) fn first_form(html: &str) -> Option<Form> {
    // ASCII lower-casing keeps every byte offset.
    let lower = html.to_ascii_lowercase();
    let start = find_tag(&lower, 0, "form")?;
    let (form, body) = attributes(html, start);
    let end = lower[body..]
        .find("</form")
        .map_or(html.len(), |at| body + at);
    let mut inputs = Vec::new();
    let mut at = body;
    while let Some(input) = find_tag(&lower[..end], at, "input") {
        let (fields, next) = attributes(html, input);
        let get = |key: &str| {
            fields
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, value)| value.clone())
        };
        if let Some(name) = get("name") {
            let kind = get("type")
                .unwrap_or_else(|| "text".into())
                .to_ascii_lowercase();
            inputs.push((name, kind, get("value").unwrap_or_default()));
        }
        at = next;
    }
    let get = |key: &str| {
        form.iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    };
    Some(Form {
        action: get("action").cloned().unwrap_or_default(),
        method: get("method").map_or_else(|| "get".into(), |method| method.to_ascii_lowercase()),
        inputs,
    })
}

/// Where the next `<name` tag starts in the lower-cased page, from `from`.
fn find_tag(lower: &str, from: usize, name: &str) -> Option<usize> {
    let open = format!("<{name}");
    let mut at = from;
    while let Some(found) = lower.get(at..)?.find(&open) {
        let start = at + found;
        let after = lower[start + open.len()..].chars().next();
        if after.is_none_or(|c| c.is_ascii_whitespace() || c == '>' || c == '/') {
            return Some(start);
        }
        at = start + open.len();
    }
    None
}

/// The attributes of the tag that starts at `start`, names in lower case
/// and values with character references decoded, and where the tag ends.
fn attributes(html: &str, start: usize) -> (Vec<(String, String)>, usize) {
    let bytes = html.as_bytes();
    let mut at = start + 1;
    while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'>' {
        at += 1;
    }
    let mut attributes = Vec::new();
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= bytes.len() {
            return (attributes, at);
        }
        if bytes[at] == b'>' {
            return (attributes, at + 1);
        }
        let name_start = at;
        while at < bytes.len() && !b" \t\r\n=/>".contains(&bytes[at]) {
            at += 1;
        }
        let name = html[name_start..at].to_ascii_lowercase();
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let mut value = String::new();
        if bytes.get(at) == Some(&b'=') {
            at += 1;
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let (value_start, value_end, next) = match bytes.get(at) {
                Some(&quote @ (b'"' | b'\'')) => {
                    let end = html[at + 1..]
                        .find(quote as char)
                        .map_or(html.len(), |e| at + 1 + e);
                    (at + 1, end, (end + 1).min(html.len()))
                }
                _ => {
                    let end = html[at..]
                        .find(|c: char| c.is_ascii_whitespace() || c == '>')
                        .map_or(html.len(), |e| at + e);
                    (at, end, end)
                }
            };
            value = decode(&html[value_start..value_end]);
            at = next;
        }
        attributes.push((name, value));
    }
}

/// `text` with its character references (`&amp;`, `&#39;`, `&#x2F;`, ...)
/// replaced; unknown ones stay as they are.
fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').and_then(|end| {
            let reference = &rest[1..end];
            let c = match reference {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => match reference.strip_prefix('#') {
                    Some(hex) if hex.starts_with(['x', 'X']) => u32::from_str_radix(&hex[1..], 16)
                        .ok()
                        .and_then(char::from_u32),
                    Some(decimal) => decimal.parse().ok().and_then(char::from_u32),
                    None => None,
                },
            };
            c.map(|c| (c, end + 1))
        });
        match decoded {
            Some((c, length)) => {
                out.push(c);
                rest = &rest[length..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped like oidc-provider's development sign-in page.
    const LOGIN: &str = r#"<!DOCTYPE html><html><body><div class="login-card"><h1>Sign-in</h1>
        <form autocomplete="off" action="http://127.0.0.1:4000/interaction/a&amp;b" method="post">
          <input type="hidden" name="prompt" value="login"/>
          <input required type="text" name="login" placeholder="Enter any login" autofocus="on">
          <input required type="password" name="password" placeholder="and password">
          <button type="submit" class="login login-submit">Sign-in</button>
        </form>
        <a href="/interaction/a/abort">[ Cancel ]</a></div></body></html>"#;

    /// Checks the first form of `html` and what it sends for `login`.
    fn check(html: &str, action: &str, method: &str, login: &str, sent: &[(&str, &str)]) {
        let form = first_form(html).unwrap();
        assert_eq!(form.action, action);
        assert_eq!(form.method, method);
        let sent: Vec<(String, String)> = sent
            .iter()
            .map(|&(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        assert_eq!(form.fill(login), sent);
    }

    #[test]
    fn reads_the_sign_in_form() {
        let action = "http://127.0.0.1:4000/interaction/a&b";
        let sent = [("prompt", "login"), ("login", "alice"), ("password", "")];
        check(LOGIN, action, "post", "alice", &sent);
    }

    #[test]
    fn reads_unquoted_and_single_quoted_values_and_skips_lookalike_tags() {
        let html = "<formal></formal><FORM ACTION=/go><inputx name=no>\
                    <input name='a' value='&#39;x&#x27;'><input type=submit name=s value=go>\
                    <input name=b value=&lt;&unknown;></form><input name=after>";
        check(
            html,
            "/go",
            "get",
            "ignored",
            &[("a", "'x'"), ("b", "<&unknown;")],
        );
    }

    #[test]
    fn no_form_is_none() {
        assert_eq!(first_form("<p>error: invalid_request</p>"), None);
    }
}
