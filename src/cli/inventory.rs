use super::args::{InventoryArgs, InventoryFormat};
use super::{EXIT_CLEAN, fail, load_options, warn_skipped};
use crate::adapt::Builder;
use crate::inventory::{CA_NAMES, from_ca, rows, write_csv, write_json, write_table};
use crate::load::load;
use crate::model::certificate::Authority;

pub fn run(args: &InventoryArgs) -> u8 {
    // The config's `exclude`, as `check` and `plan` read it; a broken config is exit 2.
    let config = match super::config_in_force(args.config.as_deref(), args.no_config, &args.paths) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let options = match load_options(args.kind.as_deref(), args.input_format.as_deref(), &args.walk, &config) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    if args.show_config {
        let excludes = config.exclude_strings();
        let shown = super::show_config::Shown {
            config_file: super::show_config::config_file(&config),
            exclude: excludes.iter().chain(&args.walk.exclude).map(String::as_str).collect(),
            ..Default::default()
        };
        return super::print(crate::report::Shield::Log, shown.render().as_bytes());
    }
    // A CA name as `certificate_authority` spells it (`letsencrypt` too), or `default`, `unknown`, `other`.
    let wanted = match args.ca.as_deref().map(|ca| ca.trim().to_ascii_lowercase()) {
        None => None,
        Some(ca) => match CA_NAMES.iter().find(|name| **name == ca) {
            Some(name) => Some(*name),
            None => match Authority::parse(Some(&ca)).as_str() {
                name if name != "other" && name != "default" => Some(name),
                _ => {
                    return fail(format!(
                        "--ca `{}` is not a CA name: expected one of {}",
                        args.ca.as_deref().unwrap_or_default(),
                        CA_NAMES.join(", ")
                    ));
                }
            },
        },
    };
    let mut builder = Builder::default();
    let loaded = match load(&args.paths, &options, &mut builder) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let inventory = builder.finish();
    // The inventory has no room for skipped files; standard error does.
    warn_skipped(&loaded.skipped, args.walk.show_files);
    let all = rows(&inventory, |origin| loaded.files[origin.file().0 as usize].name.clone());
    let mut selected: Vec<_> = all.into_iter().filter(|r| wanted.is_none_or(|ca| from_ca(r, ca))).collect();
    // `--traffic`: each certificate's requests, and those from impacted clients.
    if let Some(traffic) = super::traffic_options(&args.traffic, &config) {
        let index = crate::traffic::hosts::HostIndex::of(&inventory);
        match crate::traffic::load(&traffic.paths, &index, &traffic.read) {
            Ok(read) => {
                warn_skipped(&read.skipped, args.walk.show_files);
                crate::inventory::add_traffic(&mut selected, &read);
            }
            Err(errors) => return fail(crate::text::error::InputErrors(errors)),
        }
    }
    let mut out: Vec<u8> = Vec::new();
    // A CSV on standard output is read raw in a terminal or a log; in a
    // file, it is for a spreadsheet, and its cells are escaped for one.
    let shield = match args.format {
        InventoryFormat::Table => crate::report::Shield::Log,
        InventoryFormat::Csv if args.output.is_none() => crate::report::Shield::Log,
        InventoryFormat::Csv => crate::report::Shield::Own,
        InventoryFormat::Json => crate::report::Shield::Json,
    };
    let written = crate::report::shielded_by(shield, args.output.is_none(), false, &mut out, |out| match args.format {
        InventoryFormat::Table => write_table(&selected, out),
        InventoryFormat::Json => write_json(&selected, out),
        InventoryFormat::Csv => write_csv(&selected, out),
    });
    let written = written.and_then(|()| match &args.output {
        Some(path) => crate::files::write_output(std::path::Path::new(path), &out),
        None => crate::say::stdout(&out),
    });
    match written {
        Ok(()) => EXIT_CLEAN,
        Err(e) => fail(format!("cannot write the inventory: {e}")),
    }
}
