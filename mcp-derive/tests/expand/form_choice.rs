/// A parcel size.
#[derive(ElicitForm)]
#[form(rename_all = "lowercase")]
enum Size {
    /// Small (up to 2 kg)
    Small,
    #[form(rename = "xl", title = "Extra large")]
    ExtraLarge,
}
