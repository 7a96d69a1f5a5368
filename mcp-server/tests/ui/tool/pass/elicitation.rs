use mcp_server::elicit::{Elicit, Elicitation};
use mcp_server::{tool, ElicitForm};

/// A t-shirt size.
#[derive(ElicitForm, Debug)]
#[form(rename_all = "lowercase")]
enum Size {
    /// Small
    Small,
    #[form(title = "Medium")]
    Medium,
    #[form(rename = "xl")]
    ExtraLarge,
}

/// An extra.
#[derive(ElicitForm, Debug)]
enum Extra {
    Gift,
    Express,
}

/// Where should we send the shirt?
#[derive(ElicitForm, Debug)]
#[form(rename_all = "camelCase")]
struct Order {
    /// Your name.
    #[form(title = "Name", min_length = 1, max_length = 64)]
    full_name: String,
    #[form(format = "email")]
    email: Option<String>,
    #[form(min = 1, max = 10, default = 1)]
    count: u8,
    #[form(default = 1.5)]
    weight: f64,
    #[form(default = true)]
    gift_wrap: bool,
    #[form(default = "small")]
    size: Size,
    extras: Vec<Extra>,
    #[form(choices("red", "blue"), default = "red")]
    colour: String,
    #[form(choices("cotton", "linen"), min_length = 1)]
    fabrics: Vec<String>,
}

/// Just confirm.
#[derive(ElicitForm)]
struct Confirm;

/// Orders a shirt.
#[tool]
async fn order_shirt(
    #[elicit(message = "Your order")] order: Elicit<Order>,
    sure: Elicitation<Confirm>,
) -> String {
    match (order, sure) {
        (Elicitation::Accept(order), Elicitation::Accept(Confirm)) => format!("{order:?}"),
        _ => String::from("no order"),
    }
}

fn main() {
    assert_eq!(Order::message(), Some("Where should we send the shirt?"));
    assert!(Confirm::requested_schema().properties.is_empty());
}
