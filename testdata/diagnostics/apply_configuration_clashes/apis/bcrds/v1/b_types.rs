pub struct Settings {
    pub image: String,
}
