#[tools]
impl Notes {
    /// Writes a note.
    #[tool(scopes = ["notes:write"])]
    fn write(&self) -> String {
        String::new()
    }

    /// Reads a note.
    #[tool(read_only)]
    fn read(&self) -> String {
        String::new()
    }
}
