//! What is generated from the definitions themselves: shell completions and
//! the man page from the clap command, the config's JSON Schema from the
//! config types. Nothing here is written by hand, so none of it can drift.

use clap::CommandFactory;

use crate::report::Shield;

use super::args::Cli;
use super::{fail, print};

pub fn completions(shell: clap_complete::Shell) -> u8 {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "edgeaudit", &mut script);
    print(Shield::Own, &script)
}

/// edgeaudit(1), or edgeaudit-COMMAND(1) with that command's options.
pub fn man(command: Option<&str>) -> u8 {
    let cli = Cli::command();
    let page_of = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => {
                let title = format!("edgeaudit-{}", sub.get_name());
                // The version names the page; `check -V` is no option of the command.
                sub.clone()
                    .version(env!("CARGO_PKG_VERSION"))
                    .disable_version_flag(true)
                    .bin_name(format!("edgeaudit {}", sub.get_name()))
                    .display_name(title)
            }
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                return super::fail(format!("no command `{name}`: expected one of {}", names.join(", ")));
            }
        },
    };
    let mut page = Vec::new();
    match clap_mangen::Man::new(page_of).render(&mut page) {
        Ok(()) => print(Shield::Own, &page),
        Err(e) => fail(format!("cannot render the man page: {e}")),
    }
}

pub fn config_schema() -> u8 {
    print(Shield::Own, crate::config::json_schema().as_bytes())
}
