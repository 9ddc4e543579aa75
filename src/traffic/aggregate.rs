//! A CSV aggregate any engine can produce (docs/src/traffic.md gives the queries for
//! DuckDB, ClickHouse, BigQuery and R2 SQL): a header row
//! `host,user_agent,requests` (and optionally `tls`), a row per host and
//! client. How an account whose logs outgrow one machine is measured: in the
//! engine that already holds them.

use std::io::BufRead;

use super::classes::Request;
use crate::text::error::InputError;

/// Hands each row to `sink`.
pub fn read(name: &str, reader: Box<dyn BufRead + Send>, sink: &mut super::Sink<'_>) -> Result<(), InputError> {
    let mut csv = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(reader);
    let at = |position: Option<&csv::Position>, message: String| {
        InputError::at_line_column(name, position.map_or(1, |p| p.line() as usize), 1, message)
    };
    let headers = csv
        .headers()
        .map_err(|e| at(e.position(), format!("not a traffic aggregate: {e}")))?
        .clone();
    let column = |wanted: &str| {
        headers
            .iter()
            .position(|h| h.trim().trim_start_matches('\u{feff}').eq_ignore_ascii_case(wanted))
    };
    let (Some(host), Some(user_agent), Some(requests)) = (column("host"), column("user_agent"), column("requests")) else {
        return Err(InputError::at_line_column(
            name,
            1,
            1,
            format!(
                "not a traffic aggregate: its header is `{}`, and it needs `host,user_agent,requests` (and may have `tls`)",
                headers.iter().collect::<Vec<_>>().join(",")
            ),
        ));
    };
    let tls = column("tls");
    let mut record = csv::StringRecord::new();
    loop {
        match csv.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => return Err(at(e.position(), format!("not a row of the aggregate: {e}"))),
        }
        let line = record.position().map_or(0, |p| p.line() as usize);
        let field = |i: usize| record.get(i).unwrap_or("");
        let count: f64 = match field(requests).trim().parse::<u64>() {
            Ok(n) => n as f64,
            Err(_) => {
                // The column of the value: past the fields and commas before it.
                let column = 1 + (0..requests).map(|i| field(i).chars().count() + 1).sum::<usize>();
                return Err(InputError::at_line_column(
                    name,
                    line,
                    column,
                    format!("`requests` is `{}`, not a whole number of requests", field(requests)),
                ));
            }
        };
        sink(super::Seen {
            request: Request {
                user_agent: field(user_agent),
                tls: tls.map_or("", field),
                ..Request::default()
            },
            host: field(host),
            count,
            at: None,
        });
    }
}
