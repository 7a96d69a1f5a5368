/// Where should we send it?
#[derive(ElicitForm)]
#[form(rename_all = "camelCase")]
struct Shipping {
    /// Your full name.
    #[form(title = "Name", min_length = 1)]
    full_name: String,
    #[form(format = "email")]
    email: Option<String>,
    #[form(min = 1, max = 5, default = 1)]
    parcels: u8,
    #[form(choices("standard", "express"), default = "standard")]
    speed: String,
    size: Size,
}
