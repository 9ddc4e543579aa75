//! Stage 2: adapters fill the model, one per input format. The API adapter
//! turns the typed records of JSON and YAML exports (and the CAA lines of
//! BIND zone exports, which the BIND reader hands over in the API's DNS
//! record shape) into model resources, with the table of where its format
//! keeps each field. A new input format adds an adapter; facts, rules and
//! reports do not change.

pub mod api;

pub use api::Builder;
