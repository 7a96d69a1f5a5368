//! The terminal as approver, input handler and prompter: approval
//! questions, elicitation forms and the configuration's VS Code inputs,
//! asked only when stdin is a terminal. A password is read with the
//! terminal's echo off, and the terminal is set back however the reading
//! ends.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::PathBuf;

use mcp_types::v2026_07_28::{ElicitRequestParams, ElicitResult, ElicitResultAction};
use nix::sys::termios::{self, LocalFlags, SetArg, SpecialCharacterIndices, Termios};
use serde_json::{json, Map, Value};

use mcp_host::approval::{ApprovalRequest, Approver, AskReason, Decision};
use mcp_host::client::input::{accepted, cancelled, declined};
use mcp_host::client::InputHandler;
use mcp_host::config::inputs::{Input, InputKind, Prompter, Unanswered};
use mcp_host::untrusted::{neutralise, Untrusted};
use mcp_host::{BoxFuture, HostConfig};

/// Asks at the terminal: approvals, elicitations and inputs.
#[derive(Debug, Clone, Copy)]
pub struct Terminal;

/// Reads the configuration at `path`, asking at the terminal for the
/// inputs its servers use.
pub(super) async fn load_config(path: PathBuf) -> Result<HostConfig, String> {
    tokio::task::spawn_blocking(move || HostConfig::load_with(&path, &Terminal))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

/// What came back from a question put to the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Answer {
    /// Stdin is not a terminal: nobody was asked.
    NoTerminal,
    /// The input ended (Ctrl-D) before an answer.
    Ended,
    /// A line, trimmed.
    Line(String),
}

/// Puts `prompt` to the terminal and reads one line. Nothing is shown
/// when stdin is not a terminal. Only a line is a choice: no terminal, or
/// the end of input, denies an approval and cancels an elicitation.
pub(super) async fn ask_line(prompt: String) -> Answer {
    tokio::task::spawn_blocking(move || read_line(&prompt))
        .await
        .unwrap_or(Answer::Ended)
}

/// [`ask_line`], blocking.
fn read_line(prompt: &str) -> Answer {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Answer::NoTerminal;
    }
    show(prompt);
    let mut line = String::new();
    match stdin.lock().read_line(&mut line) {
        Ok(0) | Err(_) => Answer::Ended,
        Ok(_) => Answer::Line(line.trim().to_owned()),
    }
}

/// Shows `prompt` on stderr, hidden characters made visible.
fn show(prompt: &str) {
    eprint!("{}", mcp_host::untrusted::visible(prompt));
    let _ = std::io::stderr().flush();
}

/// As [`read_line`], with nothing typed shown: the line as typed, not
/// trimmed. Ctrl-C interrupts the command as it would at any question,
/// once the terminal is set back.
///
/// # Errors
///
/// [`Unanswered::Failed`] when the echo cannot be turned off: then
/// nothing is read.
fn read_hidden(prompt: &str) -> Result<Answer, Unanswered> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Ok(Answer::NoTerminal);
    }
    let quiet =
        Quiet::start().map_err(|e| Unanswered::Failed(format!("cannot turn the echo off: {e}")))?;
    show(prompt);
    let mut line = Vec::new();
    let mut byte = [0];
    let mut typed = stdin.lock();
    let step = loop {
        match typed.read(&mut byte) {
            Ok(1) => match quiet.keys.step(&mut line, byte[0]) {
                Step::More => {}
                step => break step,
            },
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(_) | Err(_) => break Step::End,
        }
    };
    drop(quiet);
    eprintln!();
    match step {
        Step::Interrupt => {
            let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGINT);
            std::process::exit(130)
        }
        Step::Enter => Ok(Answer::Line(String::from_utf8_lossy(&line).into_owned())),
        Step::More | Step::End => Ok(Answer::Ended),
    }
}

/// The terminal with echo, line editing and the signal keys off, set
/// back as it was when dropped.
struct Quiet {
    saved: Termios,
    keys: Keys,
}

impl Quiet {
    fn start() -> nix::Result<Self> {
        let saved = termios::tcgetattr(std::io::stdin())?;
        let mut quiet = saved.clone();
        quiet
            .local_flags
            .remove(LocalFlags::ECHO | LocalFlags::ICANON | LocalFlags::ISIG);
        quiet.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
        quiet.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
        let keys = Keys::of(&saved);
        termios::tcsetattr(std::io::stdin(), SetArg::TCSAFLUSH, &quiet)?;
        Ok(Self { saved, keys })
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        let _ = termios::tcsetattr(std::io::stdin(), SetArg::TCSANOW, &self.saved);
    }
}

/// The keys that edit a hidden line, as the terminal has them; `None`
/// when disabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Keys {
    interrupt: Option<u8>,
    end: Option<u8>,
    erase: Option<u8>,
    kill: Option<u8>,
}

/// What a key typed into a hidden line did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The line goes on.
    More,
    /// Enter: the line is done.
    Enter,
    /// The end of input at the start of the line.
    End,
    /// Ctrl-C.
    Interrupt,
}

impl Keys {
    fn of(settings: &Termios) -> Self {
        let key = |index: SpecialCharacterIndices| {
            Some(settings.control_chars[index as usize]).filter(|&b| b != 0)
        };
        Self {
            interrupt: key(SpecialCharacterIndices::VINTR),
            end: key(SpecialCharacterIndices::VEOF),
            erase: key(SpecialCharacterIndices::VERASE),
            kill: key(SpecialCharacterIndices::VKILL),
        }
    }

    /// Takes the typed `byte` into `line`.
    fn step(&self, line: &mut Vec<u8>, byte: u8) -> Step {
        let is = |key: Option<u8>| key == Some(byte);
        match byte {
            b'\r' | b'\n' => Step::Enter,
            _ if is(self.interrupt) => Step::Interrupt,
            _ if is(self.end) && line.is_empty() => Step::End,
            _ if is(self.end) => Step::More,
            0x7f | 0x08 => erase(line),
            _ if is(self.erase) => erase(line),
            _ if is(self.kill) => {
                line.clear();
                Step::More
            }
            _ => {
                line.push(byte);
                Step::More
            }
        }
    }
}

/// Takes the last character, of however many bytes, off `line`.
fn erase(line: &mut Vec<u8>) -> Step {
    while let Some(byte) = line.pop() {
        if byte & 0xc0 != 0x80 {
            break;
        }
    }
    Step::More
}

impl Prompter for Terminal {
    fn ask(&self, input: &Input) -> Result<String, Unanswered> {
        let mut prompt = input_prompt(input);
        loop {
            let answer = if input.is_password() {
                read_hidden(&prompt)?
            } else {
                read_line(&prompt)
            };
            let line = match answer {
                Answer::Line(line) => line,
                Answer::NoTerminal => return Err(Unanswered::NoTerminal),
                Answer::Ended => return Err(Unanswered::Ended),
            };
            match input.answer(&line) {
                Ok(answer) => return Ok(answer),
                Err(e) => prompt = format!("{e}.\n{}", input_prompt(input)),
            }
        }
    }
}

/// The question for `input`: its id and description, the options of a
/// `pickString`, and what Enter gives. A password's default is never
/// shown.
fn input_prompt(input: &Input) -> String {
    let description = input
        .description
        .as_deref()
        .map(|d| d.trim_end_matches(['.', ':', ' ', '\t', '\n']))
        .filter(|d| !d.is_empty())
        .map(|d| format!(" – {d}"))
        .unwrap_or_default();
    let mut text = format!("\nInput `{}`{description}", input.id);
    match (&input.kind, &input.default) {
        (InputKind::Text { password: true }, None) => text.push_str(" (hidden): "),
        (InputKind::Text { password: true }, Some(_)) => {
            text.push_str(" (hidden, Enter keeps the default): ")
        }
        (InputKind::Text { password: false }, None) => text.push_str(": "),
        (InputKind::Text { password: false }, Some(default)) => {
            text.push_str(&format!(" [{default}]: "))
        }
        (InputKind::Pick { options }, default) => {
            text.push_str(":\n");
            for (n, option) in options.iter().enumerate() {
                let mark = if default.as_ref() == Some(&option.value) {
                    " (default)"
                } else {
                    ""
                };
                text.push_str(&format!("  {}) {}{mark}\n", n + 1, option.label));
            }
            text.push_str(match default {
                Some(_) => "Number or text (Enter for the default): ",
                None => "Number or text: ",
            });
        }
    }
    text
}

pub(super) fn yes(answer: &str) -> bool {
    matches!(answer, "y" | "Y" | "yes" | "Yes")
}

/// The question that ends every elicitation prompt.
const CHOICE: &str = "Accept (y), decline (N) or cancel (c)? ";

/// What the person chose at [`CHOICE`]: Enter declines, and no answer at
/// all cancels.
fn choice(answer: &Answer) -> ElicitResultAction {
    match answer {
        Answer::Line(line) if yes(line) || matches!(line.as_str(), "a" | "accept") => {
            ElicitResultAction::Accept
        }
        Answer::Line(line) if matches!(line.as_str(), "c" | "C" | "cancel") => {
            ElicitResultAction::Cancel
        }
        Answer::Line(_) => ElicitResultAction::Decline,
        Answer::NoTerminal | Answer::Ended => ElicitResultAction::Cancel,
    }
}

impl Approver for Terminal {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, Decision> {
        Box::pin(async move {
            let call = &request.call;
            let why = match &request.reason {
                AskReason::MayWrite => String::from("the tool may change things"),
                AskReason::Rule(pattern) => format!("the policy's rule `{pattern}` asks"),
                AskReason::CrossServer(from) => format!(
                    "the arguments carry data from {}",
                    from.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let tool = neutralise(call.tool());
            let arguments = mcp_host::untrusted::safe_json(call.arguments());
            let mut text = format!(
                "\nTool `{}` of server `{}` ({}) needs approval because {why}.\nArguments:\n{arguments}\n",
                tool,
                call.server(),
                call.qualified()
            );
            if let Some(annotations) = call.annotations() {
                text.push_str(&format!("Annotations: {}\n", annotations.render()));
            }
            if !call.findings().is_empty() {
                text.push_str("Warning, the poisoning checks flag this tool's definition:\n");
                for finding in call.findings() {
                    text.push_str(&format!("  - {finding}\n"));
                }
            }
            text.push_str("Run it? [y/N] ");
            match ask_line(text).await {
                Answer::Line(line) if yes(&line) => Decision::Approve,
                Answer::NoTerminal => {
                    Decision::Deny(String::from("no terminal to ask at (use --yes in scripts)"))
                }
                Answer::Line(_) | Answer::Ended => {
                    Decision::Deny(String::from("not approved at the terminal"))
                }
            }
        })
    }

    fn label(&self) -> &'static str {
        "prompt"
    }
}

impl InputHandler for Terminal {
    fn capabilities(&self) -> mcp_types::v2026_07_28::ClientCapabilities {
        elicitation_capabilities()
    }

    fn elicit<'a>(
        &'a self,
        request: Untrusted<ElicitRequestParams>,
    ) -> BoxFuture<'a, ElicitResult> {
        Box::pin(async move {
            // Each part shown is marked as the server's, as the request is.
            let part = |text: &String| request.as_ref().map(|_| text.clone()).render();
            match request.accept_ref() {
                ElicitRequestParams::URL(url) => {
                    let message = part(&url.message);
                    let link = part(&url.url);
                    let answer = ask_line(format!(
                        "\n{message}\nThe server asks you to open this URL yourself:\n{link}\n{CHOICE}"
                    ))
                    .await;
                    match choice(&answer) {
                        ElicitResultAction::Accept => accepted(Map::new()),
                        ElicitResultAction::Cancel => cancelled(),
                        ElicitResultAction::Decline => declined(),
                    }
                }
                ElicitRequestParams::Form(form) => {
                    let message = part(&form.message);
                    let answer = ask_line(format!("\n{message}\n{CHOICE}")).await;
                    match choice(&answer) {
                        ElicitResultAction::Accept => {
                            let schema =
                                serde_json::to_value(&form.requested_schema).unwrap_or_default();
                            match fill_form(&schema).await {
                                Some(content) => accepted(content),
                                None => cancelled(),
                            }
                        }
                        ElicitResultAction::Cancel => cancelled(),
                        ElicitResultAction::Decline => declined(),
                    }
                }
            }
        })
    }
}

/// What a front end that asks elicitations of both kinds declares.
pub(crate) fn elicitation_capabilities() -> mcp_types::v2026_07_28::ClientCapabilities {
    serde_json::from_value(json!({ "elicitation": { "form": {}, "url": {} } })).unwrap_or_default()
}

/// The line that asks for one field: its name, its type and what it is
/// for, all as the server wrote them, rendered, and a colon. A
/// description's own closing `.` or `:` is dropped, so the line never
/// ends in `.:`.
fn field_prompt(name: &str, kind: &str, description: Option<&str>) -> String {
    let shown = |text: &str| neutralise(text);
    let hint = description
        .map(|d| {
            shown(d)
                .trim_end_matches(['.', ':', ' ', '\t', '\n'])
                .to_owned()
        })
        .filter(|d| !d.is_empty())
        .map(|d| format!(" – {d}"))
        .unwrap_or_default();
    format!("{} ({}){hint}: ", shown(name), shown(kind))
}

/// Asks each field of a flat form; `None` if the terminal goes away.
async fn fill_form(schema: &Value) -> Option<Map<String, Value>> {
    let mut content = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object)?;
    for (name, field) in properties {
        let kind = field
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let description = field.get("description").and_then(Value::as_str);
        let prompt = field_prompt(name, kind, description);
        let Answer::Line(line) = ask_line(prompt).await else {
            return None;
        };
        if line.is_empty() {
            continue;
        }
        content.insert(name.clone(), field_value(kind, &line));
    }
    Some(content)
}

/// A line typed for a form field, as the field's JSON type: a number
/// that does not parse stays text, for the server to refuse.
pub(crate) fn field_value(kind: &str, line: &str) -> Value {
    match kind {
        "boolean" => json!(yes(line) || line == "true"),
        "integer" => line.parse::<i64>().map(Value::from).unwrap_or(json!(line)),
        "number" => line.parse::<f64>().map(Value::from).unwrap_or(json!(line)),
        "array" => json!(line.split(',').map(str::trim).collect::<Vec<_>>()),
        _ => json!(line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_host::config::inputs::PickOption;

    #[test]
    fn a_field_line_never_ends_in_a_period_and_a_colon() {
        let line = |d| field_prompt("delete", "boolean", d);
        assert_eq!(
            line(Some("Tick to delete the note for good.")),
            "delete (boolean) – Tick to delete the note for good: "
        );
        assert_eq!(line(Some("Why: ")), "delete (boolean) – Why: ");
        assert_eq!(line(Some(" . ")), "delete (boolean): ");
        assert_eq!(line(None), "delete (boolean): ");
        let hostile = field_prompt("x\u{1b}[2J", "string\u{202e}", Some("go\u{7}."));
        assert!(
            !hostile.contains(['\u{1b}', '\u{202e}', '\u{7}']),
            "{hostile:?}"
        );
    }

    #[test]
    fn an_input_prompt_shows_what_enter_gives_and_never_a_password_default() {
        let input = |kind, description: Option<&str>, default: Option<&str>| Input {
            id: "key".into(),
            description: description.map(str::to_owned),
            kind,
            default: default.map(str::to_owned),
        };
        let text = |password| InputKind::Text { password };
        let pick = InputKind::Pick {
            options: ["eu", "us"]
                .map(|o| PickOption {
                    label: o.to_uppercase(),
                    value: o.into(),
                })
                .into(),
        };
        for (input, expected) in [
            (
                input(text(true), Some("API key."), None),
                "\nInput `key` – API key (hidden): ",
            ),
            (
                input(text(true), None, Some("s3cret")),
                "\nInput `key` (hidden, Enter keeps the default): ",
            ),
            (input(text(false), None, None), "\nInput `key`: "),
            (
                input(text(false), Some(" "), Some("eu")),
                "\nInput `key` [eu]: ",
            ),
            (
                input(pick.clone(), Some("Region:"), None),
                "\nInput `key` – Region:\n  1) EU\n  2) US\nNumber or text: ",
            ),
            (
                input(pick, None, Some("us")),
                "\nInput `key`:\n  1) EU\n  2) US (default)\nNumber or text (Enter for the default): ",
            ),
        ] {
            assert_eq!(input_prompt(&input), expected);
        }
    }

    #[test]
    fn a_hidden_line_is_edited_with_the_terminals_keys() {
        let keys = Keys {
            interrupt: Some(3),
            end: Some(4),
            erase: Some(0x7f),
            kill: Some(0x15),
        };
        let typed = |bytes: &[u8]| {
            let mut line = Vec::new();
            for &byte in bytes {
                match keys.step(&mut line, byte) {
                    Step::More => {}
                    step => return (step, String::from_utf8_lossy(&line).into_owned()),
                }
            }
            (Step::More, String::from_utf8_lossy(&line).into_owned())
        };
        for (bytes, expected) in [
            (&b"s3cret\r"[..], (Step::Enter, "s3cret")),
            (b"a b \n", (Step::Enter, "a b ")),
            (b"abX\x7fc\r", (Step::Enter, "abc")),
            ("caf\u{e9}\x08e\r".as_bytes(), (Step::Enter, "cafe")),
            (b"wrong\x15right\r", (Step::Enter, "right")),
            (b"\x7f\x7fok\r", (Step::Enter, "ok")),
            (b"\x04", (Step::End, "")),
            (b"ab\x04c\r", (Step::Enter, "abc")),
            (b"ab\x03", (Step::Interrupt, "ab")),
        ] {
            let (step, line) = typed(bytes);
            assert_eq!((step, line.as_str()), expected, "{bytes:?}");
        }
    }

    #[test]
    fn only_a_line_is_a_choice() {
        let line = |s: &str| Answer::Line(s.to_owned());
        assert_eq!(choice(&line("y")), ElicitResultAction::Accept);
        assert_eq!(choice(&line("accept")), ElicitResultAction::Accept);
        assert_eq!(choice(&line("")), ElicitResultAction::Decline);
        assert_eq!(choice(&line("n")), ElicitResultAction::Decline);
        assert_eq!(choice(&line("c")), ElicitResultAction::Cancel);
        assert_eq!(choice(&Answer::Ended), ElicitResultAction::Cancel);
        assert_eq!(choice(&Answer::NoTerminal), ElicitResultAction::Cancel);
    }
}
