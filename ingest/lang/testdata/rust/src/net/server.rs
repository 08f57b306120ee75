use std::collections::HashMap;
use crate::config::{Config, Mode as RunMode};
use super::util::*;
extern crate serde;
mod handlers;
pub mod tests {
    fn helper() {}
}

/// A server.
/// Serves things.
#[derive(Debug)]
pub struct Server {
    addr: String,
    routes: HashMap<String, Box<dyn Handler>>,
}

pub enum Event { Start, Stop(u32) }

pub trait Handler {
    fn handle(&self, req: &Request) -> Response;
}

pub type Routes = Vec<Route>;

union Bits { i: u32, f: f32 }

impl Server {
    /// Creates a server.
    pub fn new(addr: &str) -> Self {
        let cfg: Config = Config::load();
        Server { addr: addr.to_string(), routes: HashMap::new() }
    }

    fn run(&mut self, h: &dyn Handler) -> Result<(), Error> {
        h.handle(&self.req);
        self.log("run");
        let names: Vec<String> = self.routes.keys().map(Self::fmt).collect();
        println!("{}", names.len());
        Ok(())
    }
}

impl Handler for Server {
    fn handle(&self, req: &Request) -> Response { dispatch(req) }
}

impl Display for Remote {
    fn fmt(&self) -> String { String::new() }
}

pub(crate) fn start(s: Server) {
    let srv = Server::new("x");
    srv.run(&Logger);
    spawn(worker);
}
