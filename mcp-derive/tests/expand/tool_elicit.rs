/// Deletes a project after the user confirms.
#[tool(destructive)]
fn delete_project(project: String, #[elicit(message = "Really delete?")] confirm: Elicit<Confirm>) -> String {
    match confirm {
        Elicitation::Accept(_) => format!("deleted {project}"),
        _ => String::from("kept"),
    }
}
