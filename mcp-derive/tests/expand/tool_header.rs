/// Lists the machines of a region.
#[tool]
fn machines(#[header("Region")] region: String, #[header("Limit")] limit: Option<u32>) -> Vec<ContentBlock> {
    list(&region, limit)
}
