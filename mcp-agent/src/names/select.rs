//! Which tools a provider is offered: per-server selection, the provider's
//! tool budget, and room for the tools the model finds by search.

use std::collections::{BTreeMap, VecDeque};

use crate::schema::Target;

use super::search::MAX_RESULTS;

/// The most tools one request may carry for `target`.
///
/// OpenAI documents 128 tools per request
/// ([function calling](https://platform.openai.com/docs/guides/function-calling)).
/// Neither Anthropic's nor Gemini's documentation we read states a cap for
/// client tools, so both get the same conservative 128, which also keeps
/// the tool definitions a bounded share of the context.
pub fn tool_budget(target: Target) -> usize {
    match target {
        Target::OpenAi | Target::Anthropic | Target::Gemini => 128,
    }
}

/// One tool of the host's catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogueTool {
    /// The host's id of the server.
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
    /// The tool's description, searched by [`SearchIndex`](super::SearchIndex).
    pub description: String,
}

/// The selection rule for one server's tools.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerRule {
    /// Glob patterns (`*` any run, `?` one character) over tool names; when
    /// any are given, only matching tools are considered.
    pub include: Vec<String>,
    /// Glob patterns of tools never offered nor searchable; they win over
    /// `include`.
    pub exclude: Vec<String>,
    /// The most tools of this server offered up front; the rest stay
    /// searchable.
    pub limit: Option<usize>,
}

/// The selection rules and the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionConfig {
    /// Per-server rules by server id; a server without one has every tool
    /// considered.
    pub servers: BTreeMap<String, ServerRule>,
    /// The provider's tool budget ([`tool_budget`]).
    pub budget: usize,
}

/// Why a tool is not offered up front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftOut {
    /// Its name matches this exclude pattern; not searchable.
    Excluded(String),
    /// The server has include patterns and none matches; not searchable.
    NotIncluded,
    /// Past the server's limit; searchable.
    ServerLimit(usize),
    /// Past the tool budget; searchable.
    OverBudget(usize),
}

impl LeftOut {
    /// Whether the search tool can still find the tool.
    pub fn searchable(&self) -> bool {
        matches!(self, LeftOut::ServerLimit(_) | LeftOut::OverBudget(_))
    }
}

/// The tools offered, and why each other one is not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// `(server, tool)` offered up front, in the stable order.
    pub offered: Vec<(String, String)>,
    /// Every other tool with the reason, in the stable order.
    pub left_out: Vec<((String, String), LeftOut)>,
    /// Whether the search tool is offered: some tools are searchable only.
    pub search_tool: bool,
    /// Tools found by search and offered since, oldest first.
    pub found: VecDeque<(String, String)>,
    found_room: usize,
}

impl Selection {
    /// Every tool offered this turn: the up-front ones, then those found by
    /// search.
    pub fn offered_now(&self) -> impl Iterator<Item = &(String, String)> {
        self.offered.iter().chain(self.found.iter())
    }

    /// Offers the searchable tools among `hits` from the next turn on.
    /// Room for found tools is [`MAX_RESULTS`](super::MAX_RESULTS); when it is full the oldest
    /// found tools make way. Tools already offered, or not searchable, are
    /// ignored.
    pub fn promote<'a>(&mut self, hits: impl IntoIterator<Item = (&'a str, &'a str)>) {
        for (server, tool) in hits {
            let pair = (server.to_owned(), tool.to_owned());
            let searchable = self
                .left_out
                .iter()
                .any(|(p, why)| *p == pair && why.searchable());
            if !searchable || self.found.contains(&pair) {
                continue;
            }
            if self.found.len() == self.found_room {
                self.found.pop_front();
            }
            if self.found_room > 0 {
                self.found.push_back(pair);
            }
        }
    }
}

/// Selects the tools offered from `catalogue`.
///
/// The rule, in order: tools sorted by (server, tool); each server's
/// exclude patterns, then its include patterns, then its limit; then, when
/// more tools remain than the budget holds, the search tool takes one place
/// and [`MAX_RESULTS`](super::MAX_RESULTS) places are kept for tools found by search, and the
/// rest of the budget is filled round-robin over the servers (each
/// server's first tool, then each one's second, ...), so no server crowds
/// out the others.
pub fn select(catalogue: &[CatalogueTool], config: &SelectionConfig) -> Selection {
    let mut tools: Vec<(String, String)> = catalogue
        .iter()
        .map(|t| (t.server.clone(), t.tool.clone()))
        .collect();
    tools.sort();
    tools.dedup();
    let default_rule = ServerRule::default();
    let mut left_out = Vec::new();
    let mut per_server: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for pair in tools {
        let rule = config.servers.get(&pair.0).unwrap_or(&default_rule);
        if let Some(p) = rule.exclude.iter().find(|p| glob(p, &pair.1)) {
            left_out.push((pair, LeftOut::Excluded(p.clone())));
            continue;
        }
        if !rule.include.is_empty() && !rule.include.iter().any(|p| glob(p, &pair.1)) {
            left_out.push((pair, LeftOut::NotIncluded));
            continue;
        }
        let kept = per_server.entry(pair.0.clone()).or_default();
        match rule.limit {
            Some(limit) if kept.len() >= limit => {
                left_out.push((pair, LeftOut::ServerLimit(limit)))
            }
            _ => kept.push(pair),
        }
    }
    let total: usize = per_server.values().map(Vec::len).sum();
    let searchable_before = left_out.iter().any(|(_, why)| why.searchable());
    let over = total > config.budget;
    let search_tool = (over || searchable_before) && config.budget > 0;
    let found_room = if search_tool {
        MAX_RESULTS.min(config.budget.saturating_sub(1))
    } else {
        0
    };
    let room = if search_tool {
        config.budget.saturating_sub(1 + found_room)
    } else {
        config.budget
    };
    let mut offered = Vec::new();
    let mut queues: Vec<std::vec::IntoIter<(String, String)>> =
        per_server.into_values().map(Vec::into_iter).collect();
    let mut rest = Vec::new();
    loop {
        let mut any = false;
        for queue in &mut queues {
            if let Some(pair) = queue.next() {
                any = true;
                if offered.len() < room {
                    offered.push(pair);
                } else {
                    rest.push(pair);
                }
            }
        }
        if !any {
            break;
        }
    }
    offered.sort();
    left_out.extend(
        rest.into_iter()
            .map(|p| (p, LeftOut::OverBudget(config.budget))),
    );
    left_out.sort_by(|a, b| a.0.cmp(&b.0));
    Selection {
        offered,
        left_out,
        search_tool,
        found: VecDeque::new(),
        found_room,
    }
}

/// Whether `name` matches the glob `pattern`: `*` any run of characters,
/// `?` any one, everything else itself. At most the product of the two
/// lengths in steps, whatever the pattern (no exponential backtracking).
pub(crate) fn glob(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == n[ni])) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}
