/// Writes a note.
#[tool(scopes = ["notes:write", "notes:read"])]
fn write_note(text: String) -> String {
    text
}
