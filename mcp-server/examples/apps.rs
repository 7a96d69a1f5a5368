//! An MCP Apps server: a dice roller whose results a host can show in an
//! interactive view, over stdio.
//!
//! - `roll` is for the model and the view: it renders in the view
//!   `ui://dice/view.html`, and returns text that a host without views
//!   shows (and the model reads) beside the numbers the view draws.
//! - `reroll` is for the view alone (`visibility = ["app"]`): the view's
//!   "Roll again" button calls it through the host; the model never sees
//!   it.
//!
//! The view (`apps_view.html`) is one HTML document whose short script
//! speaks the view's side of the protocol over `postMessage`: it starts
//! with `ui/initialize` and `ui/notifications/initialized`, draws what
//! `ui/notifications/tool-input` and `ui/notifications/tool-result` bring,
//! calls `reroll` with `tools/call`, and reports its size with
//! `ui/notifications/size-changed`. The script is inline: a host hands the
//! view to its sandbox as one document.
//!
//! ```text
//! cargo run -p mcp-toolkit-server --example apps
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use mcp_server::apps::View;
use mcp_server::tool::{Json, ToolError};
use mcp_server::transport::stdio;
use mcp_server::{schemars, tool, tools, Server};
use serde::Serialize;

const VIEW: &str = "ui://dice/view.html";

/// The dice server: the state of its random numbers.
struct Dice {
    state: AtomicU64,
}

/// One roll, as the view draws it.
#[derive(Serialize, schemars::JsonSchema)]
struct Roll {
    /// Faces of each die.
    sides: u32,
    /// What each die shows.
    rolls: Vec<u32>,
    /// Their sum.
    total: u32,
}

#[tools]
impl Dice {
    /// Rolls `count` dice of `sides` faces each (at most 20 dice of 2 to
    /// 100 faces).
    #[tool(ui = "ui://dice/view.html", visibility = ["model", "app"])]
    fn roll(&self, count: u32, sides: u32) -> Result<(String, Json<Roll>), ToolError> {
        self.throw(count, sides)
    }

    /// Rolls the same dice again; the view's "Roll again" button.
    #[tool(visibility = ["app"])]
    fn reroll(&self, count: u32, sides: u32) -> Result<(String, Json<Roll>), ToolError> {
        self.throw(count, sides)
    }
}

impl Dice {
    fn throw(&self, count: u32, sides: u32) -> Result<(String, Json<Roll>), ToolError> {
        if !(1..=20).contains(&count) || !(2..=100).contains(&sides) {
            return Err(ToolError::execution(
                "roll 1 to 20 dice of 2 to 100 faces each",
            ));
        }
        let rolls: Vec<u32> = (0..count).map(|_| self.next(sides)).collect();
        let total = rolls.iter().sum();
        let shown: Vec<String> = rolls.iter().map(u32::to_string).collect();
        // The text stands on its own: it is all a host without views shows.
        let text = format!(
            "Rolled {count}d{sides}: {} (total {total})",
            shown.join(", ")
        );
        Ok((
            text,
            Json(Roll {
                sides,
                rolls,
                total,
            }),
        ))
    }

    /// A number from 1 to `sides` (xorshift64*: fine for dice, not for
    /// secrets).
    fn next(&self, sides: u32) -> u32 {
        let step = |mut x: u64| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x
        };
        let previous = self
            .state
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |x| Some(step(x)))
            .unwrap_or_default();
        let value = step(previous).wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32;
        (value % u64::from(sides)) as u32 + 1
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    let view = View::new(VIEW, include_str!("apps_view.html"))
        .name("dice_view")
        .title("Dice")
        .description("The dice of a roll, with a button to roll again")
        .prefers_border(true);
    let server = Server::builder(Dice {
        state: AtomicU64::new(seed),
    })
    .info("dice", "1.0.0")
    .tools()
    .view(view)
    .build()?;
    stdio::serve(server).await?;
    Ok(())
}
