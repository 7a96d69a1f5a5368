/// Adds two integers.
#[tool(read_only, idempotent, title = "Add")]
pub fn add(
    /// The first term.
    a: i64,
    b: Option<i64>,
) -> i64 {
    a + b.unwrap_or(0)
}
