//! The multi-round-trip driver: from an `InputRequiredResult` to the input
//! requests the host must answer, and from the answers to the retry.
//! Sans-IO: the client sends, the driver keeps the books.
//!
//! # Call contract
//!
//! 1. [`MrtrDriver::new`] with the method (`tools/call`, `prompts/get` or
//!    `resources/read`) and the original params. Any `inputResponses` or
//!    `requestState` in them is dropped: the driver adds its own.
//! 2. [`MrtrDriver::first`] with a fresh JSON-RPC id gives the first
//!    request's params. Send them.
//! 3. If the answer is an `InputRequiredResult`, give it to
//!    [`MrtrDriver::on_input_required`]. It returns the [`InputRound`]: the
//!    input requests the host's handlers must answer (possibly none, when the
//!    server only sent `requestState`).
//! 4. Answer every request of the round and pass the answers, with another
//!    fresh id, to [`MrtrDriver::retry`]. It returns the retry's params: the
//!    original params, the answers as `inputResponses` (left out when the
//!    round asked for nothing), and `requestState` exactly as received (left
//!    out when none came). Send them and go back to 3.
//!
//! The driver refuses to reuse a JSON-RPC id, stops after
//! [`DEFAULT_MAX_ROUNDS`] rounds (or the bound given to
//! [`MrtrDriver::with_max_rounds`]), and refuses answers that do not match
//! the round's keys. State from one call never reaches another: each call
//! has its own driver.

use std::collections::{BTreeMap, BTreeSet};

use mcp_types::method::may_require_input;
use mcp_types::v2026_07_28::{InputRequest, InputRequiredResult, InputResponse, RequestId};
use serde_json::{Map, Value};

/// How many `InputRequiredResult`s one call may answer before the driver
/// gives up.
pub const DEFAULT_MAX_ROUNDS: usize = 8;

/// Why the driver stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MrtrError {
    /// The method may not answer with `InputRequiredResult`.
    #[error("`{0}` cannot ask for input")]
    NotInputCapable(String),
    /// The server asked for input more often than the bound allows.
    #[error("the server asked for input more than {0} times")]
    TooManyRounds(usize),
    /// An `InputRequiredResult` with neither `inputRequests` nor
    /// `requestState`.
    #[error("the server asked for input but sent neither inputRequests nor requestState")]
    Empty,
    /// A JSON-RPC id was given twice.
    #[error("request id {0} was already used for this call")]
    ReusedId(String),
    /// An answer for a key the round did not ask for, or none for one it did.
    #[error("the answers do not match the input requests (key `{0}`)")]
    AnswerMismatch(String),
    /// `retry` or `on_input_required` out of order.
    #[error("the driver was called out of order")]
    OutOfOrder,
}

/// One round of input: what the server asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRound {
    /// The input requests by the server's keys.
    pub requests: BTreeMap<String, InputRequest>,
    /// Which round this is, from 1.
    pub round: usize,
}

/// The bookkeeping of one multi-round call.
#[derive(Debug, Clone)]
pub struct MrtrDriver {
    method: String,
    params: Map<String, Value>,
    max_rounds: usize,
    rounds: usize,
    ids: BTreeSet<String>,
    /// The keys and state of the round awaiting answers.
    awaiting: Option<(BTreeSet<String>, Option<String>)>,
}

impl MrtrDriver {
    /// A driver for one call of `method` with `params`.
    ///
    /// # Errors
    ///
    /// [`MrtrError::NotInputCapable`] when `method` may not ask for input.
    pub fn new(method: &str, mut params: Map<String, Value>) -> Result<Self, MrtrError> {
        if !may_require_input(method) {
            return Err(MrtrError::NotInputCapable(method.to_owned()));
        }
        params.remove("inputResponses");
        params.remove("requestState");
        Ok(Self {
            method: method.to_owned(),
            params,
            max_rounds: DEFAULT_MAX_ROUNDS,
            rounds: 0,
            ids: BTreeSet::new(),
            awaiting: None,
        })
    }

    /// Bounds the rounds at `max` instead of [`DEFAULT_MAX_ROUNDS`].
    pub fn with_max_rounds(mut self, max: usize) -> Self {
        self.max_rounds = max;
        self
    }

    /// The method being called.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// How many rounds of input have been asked for so far.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    fn claim(&mut self, id: &RequestId) -> Result<(), MrtrError> {
        if self.ids.insert(id.to_string()) {
            Ok(())
        } else {
            Err(MrtrError::ReusedId(id.to_string()))
        }
    }

    /// The params of the first request, sent with `id`.
    ///
    /// # Errors
    ///
    /// [`MrtrError::ReusedId`] if `id` was used before;
    /// [`MrtrError::OutOfOrder`] after the first round started.
    pub fn first(&mut self, id: &RequestId) -> Result<Map<String, Value>, MrtrError> {
        if !self.ids.is_empty() {
            return Err(MrtrError::OutOfOrder);
        }
        self.claim(id)?;
        Ok(self.params.clone())
    }

    /// Takes an `InputRequiredResult` and says what to ask the host.
    ///
    /// # Errors
    ///
    /// [`MrtrError::TooManyRounds`] past the bound, [`MrtrError::Empty`] for
    /// a result that asks for nothing and carries no state.
    pub fn on_input_required(
        &mut self,
        result: InputRequiredResult,
    ) -> Result<InputRound, MrtrError> {
        if self.ids.is_empty() || self.awaiting.is_some() {
            return Err(MrtrError::OutOfOrder);
        }
        let requests = result.input_requests.unwrap_or_default();
        if requests.is_empty() && result.request_state.is_none() {
            return Err(MrtrError::Empty);
        }
        if self.rounds >= self.max_rounds {
            return Err(MrtrError::TooManyRounds(self.max_rounds));
        }
        self.rounds += 1;
        self.awaiting = Some((requests.keys().cloned().collect(), result.request_state));
        Ok(InputRound {
            requests,
            round: self.rounds,
        })
    }

    /// The params of the retry, sent with `id`, given an answer for every
    /// key of the round.
    ///
    /// # Errors
    ///
    /// [`MrtrError::ReusedId`] if `id` was used before,
    /// [`MrtrError::AnswerMismatch`] when the keys differ from the round's,
    /// [`MrtrError::OutOfOrder`] when no round awaits answers.
    pub fn retry(
        &mut self,
        answers: BTreeMap<String, InputResponse>,
        id: &RequestId,
    ) -> Result<Map<String, Value>, MrtrError> {
        let Some((keys, state)) = self.awaiting.take() else {
            return Err(MrtrError::OutOfOrder);
        };
        let given: BTreeSet<String> = answers.keys().cloned().collect();
        if let Some(key) = keys.symmetric_difference(&given).next() {
            let key = key.clone();
            self.awaiting = Some((keys, state));
            return Err(MrtrError::AnswerMismatch(key));
        }
        if let Err(e) = self.claim(id) {
            self.awaiting = Some((keys, state));
            return Err(e);
        }
        let mut params = self.params.clone();
        if !keys.is_empty() {
            let answers = answers
                .into_iter()
                .map(|(k, v)| (k, serde_json::to_value(v).unwrap_or(Value::Null)))
                .collect();
            params.insert("inputResponses".into(), Value::Object(answers));
        }
        if let Some(state) = state {
            params.insert("requestState".into(), Value::String(state));
        }
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use mcp_types::v2026_07_28::{ElicitResult, ListRootsResult};
    use serde_json::json;

    use super::*;

    fn params() -> Map<String, Value> {
        let value = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
                           "name": "book", "arguments": {"city": "Oslo"},
                           "requestState": "stale", "inputResponses": {}});
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn ask(value: Value) -> InputRequiredResult {
        serde_json::from_value(value).expect("an InputRequiredResult")
    }

    fn elicit_answer() -> InputResponse {
        let result: ElicitResult =
            serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}}))
                .expect("elicit result");
        result.into()
    }

    fn id(n: i64) -> RequestId {
        RequestId::Integer(n)
    }

    const STATE: &str = "eyJ0b29sIjoiYm9vayJ9.\u{e9}\\\"x\" \u{2028} ";

    #[test]
    fn a_round_trip_echoes_state_and_uses_new_ids() {
        let mut driver = MrtrDriver::new("tools/call", params()).expect("capable");
        let first = driver.first(&id(1)).expect("first");
        assert!(!first.contains_key("requestState") && !first.contains_key("inputResponses"));
        let round = driver
            .on_input_required(ask(json!({"resultType": "input_required", "requestState": STATE,
                "inputRequests": {"who": {"method": "elicitation/create", "params": {
                    "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}})))
            .expect("round");
        assert_eq!(round.round, 1);
        assert!(matches!(
            round.requests.get("who"),
            Some(InputRequest::Elicit(_))
        ));
        let answers = BTreeMap::from([("who".to_owned(), elicit_answer())]);
        assert_eq!(
            driver.retry(answers.clone(), &id(1)),
            Err(MrtrError::ReusedId("1".into()))
        );
        let retry = driver.retry(answers, &id(2)).expect("retry");
        assert_eq!(retry["requestState"], json!(STATE));
        assert_eq!(
            retry["inputResponses"]["who"]["content"]["name"],
            json!("Ada")
        );
        assert_eq!(retry["name"], json!("book"));
        assert_eq!(retry["arguments"], json!({"city": "Oslo"}));
        // The state is the exact string, byte for byte.
        assert_eq!(
            retry["requestState"].as_str().map(str::as_bytes),
            Some(STATE.as_bytes())
        );
    }

    #[test]
    fn state_only_rounds_retry_without_input_responses() {
        let mut driver = MrtrDriver::new("resources/read", Map::new()).expect("capable");
        driver.first(&id(10)).expect("first");
        let round = driver
            .on_input_required(ask(
                json!({"resultType": "input_required", "requestState": "s"}),
            ))
            .expect("round");
        assert!(round.requests.is_empty());
        let retry = driver.retry(BTreeMap::new(), &id(11)).expect("retry");
        assert_eq!(retry.get("requestState"), Some(&json!("s")));
        assert!(!retry.contains_key("inputResponses"));
    }

    #[test]
    fn no_state_sent_means_none_echoed() {
        let mut driver = MrtrDriver::new("prompts/get", params()).expect("capable");
        driver.first(&id(1)).expect("first");
        driver
            .on_input_required(ask(json!({"resultType": "input_required",
                "inputRequests": {"r": {"method": "roots/list"}}})))
            .expect("round");
        let roots: ListRootsResult = serde_json::from_value(json!({"roots": []})).expect("roots");
        let retry = driver
            .retry(BTreeMap::from([("r".to_owned(), roots.into())]), &id(2))
            .expect("retry");
        assert!(!retry.contains_key("requestState"));
        assert!(retry["inputResponses"]["r"]["roots"].is_array());
    }

    #[test]
    fn rounds_are_bounded() {
        let mut driver = MrtrDriver::new("tools/call", params())
            .expect("capable")
            .with_max_rounds(2);
        driver.first(&id(0)).expect("first");
        for n in 1..=2 {
            driver
                .on_input_required(ask(
                    json!({"resultType": "input_required", "requestState": "again"}),
                ))
                .expect("round");
            driver.retry(BTreeMap::new(), &id(n)).expect("retry");
        }
        assert_eq!(
            driver.on_input_required(ask(
                json!({"resultType": "input_required", "requestState": "again"})
            )),
            Err(MrtrError::TooManyRounds(2))
        );
    }

    #[test]
    fn answers_must_match_the_keys() {
        let mut driver = MrtrDriver::new("tools/call", params()).expect("capable");
        driver.first(&id(1)).expect("first");
        driver
            .on_input_required(ask(json!({"resultType": "input_required",
                "inputRequests": {"a": {"method": "roots/list"}, "b": {"method": "roots/list"}}})))
            .expect("round");
        let one = BTreeMap::from([("a".to_owned(), elicit_answer())]);
        assert_eq!(
            driver.retry(one, &id(2)),
            Err(MrtrError::AnswerMismatch("b".into()))
        );
        let extra = BTreeMap::from([
            ("a".to_owned(), elicit_answer()),
            ("b".to_owned(), elicit_answer()),
            ("c".to_owned(), elicit_answer()),
        ]);
        assert_eq!(
            driver.retry(extra, &id(2)),
            Err(MrtrError::AnswerMismatch("c".into()))
        );
    }

    #[test]
    fn misuse_is_refused() {
        assert_eq!(
            MrtrDriver::new("tools/list", Map::new()).err(),
            Some(MrtrError::NotInputCapable("tools/list".into()))
        );
        let mut driver = MrtrDriver::new("tools/call", Map::new()).expect("capable");
        assert_eq!(
            driver.retry(BTreeMap::new(), &id(1)),
            Err(MrtrError::OutOfOrder)
        );
        driver.first(&id(1)).expect("first");
        assert_eq!(driver.first(&id(2)), Err(MrtrError::OutOfOrder));
        assert_eq!(
            driver.on_input_required(ask(json!({"resultType": "input_required"}))),
            Err(MrtrError::Empty)
        );
    }
}
