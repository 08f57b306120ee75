/// Something that greets.
pub trait Greet {
    fn greet(&self) -> String;
}

pub struct English;

impl Greet for English {
    fn greet(&self) -> String {
        "hello".to_string()
    }
}

pub fn run(g: &dyn Greet) -> String {
    g.greet()
}
