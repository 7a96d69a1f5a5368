#[tools]
impl Counter {
    /// Adds to the counter.
    #[tool]
    fn bump(&self, by: u64) -> u64 {
        self.count.fetch_add(by, Ordering::SeqCst) + by
    }

    /// Reads the counter.
    #[tool(name = "counter.read", read_only)]
    async fn read(&self) -> String {
        self.count.load(Ordering::SeqCst).to_string()
    }

    fn helper(&self) {}
}
