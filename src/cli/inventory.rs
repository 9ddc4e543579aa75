use std::io::Write;

use super::args::{InventoryArgs, InventoryFormat};
use super::{EXIT_CLEAN, fail, load_options};
use crate::inventory::{rows, write_csv, write_json, write_table};
use crate::load::load;
use crate::model::build::Builder;

pub fn run(args: &InventoryArgs) -> u8 {
    let options = match load_options(args.kind.as_deref(), args.input_format) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let mut builder = Builder::default();
    let loaded = match load(&args.paths, &options, &mut builder) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let inventory = builder.finish();
    let wanted = args.ca.as_deref().map(|c| c.trim().to_ascii_lowercase());
    let all = rows(&inventory, |origin| loaded.files[origin.file.0 as usize].name.clone());
    let selected: Vec<_> = all
        .into_iter()
        .filter(|r| wanted.as_deref().is_none_or(|w| r.ca.eq_ignore_ascii_case(w)))
        .collect();
    let mut out: Box<dyn Write> = match &args.output {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => return fail(format!("cannot write {path}: {e}")),
        },
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let written = match args.format {
        InventoryFormat::Table => write_table(&selected, &mut out),
        InventoryFormat::Json => write_json(&selected, &mut out),
        InventoryFormat::Csv => write_csv(&selected, &mut out),
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => EXIT_CLEAN,
        Err(e) => fail(format!("cannot write the inventory: {e}")),
    }
}
