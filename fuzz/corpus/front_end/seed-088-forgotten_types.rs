pub struct Forgotten;
