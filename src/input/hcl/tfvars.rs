//! The variable values Terraform itself loads from beside a configuration:
//! `terraform.tfvars`, `terraform.tfvars.json`, then `*.auto.tfvars` and
//! `*.auto.tfvars.json` in lexical order, each later file overriding the
//! earlier (as `terraform plan` does without options). They override
//! defaults, so a rule must never judge a default such a file replaces.
//! `-var`, `-var-file` and `TF_VAR_*` come only with a run and stay unseen,
//! as docs/src/terraform.md says.

use std::collections::BTreeMap;
use std::path::Path;

use hcl_edit::expr::Expression;
use serde_json::Value;

use crate::text::bounded;

/// A value a variables file gives.
#[derive(Debug, Clone)]
pub enum Assigned {
    /// From a `.tfvars` file: an expression, evaluated like a default.
    Expression(Expression),
    /// From a `.tfvars.json` file.
    Json(Value),
}

#[derive(Debug, Default)]
pub struct Tfvars {
    /// By variable: the file that sets it last, and its value.
    pub values: BTreeMap<String, (String, Assigned)>,
    /// Why a variables file of the directory could not be read: then any
    /// variable may be set by it, so none is known.
    pub unread: Option<String>,
}

/// Whether Terraform loads a file of this name by itself.
fn loaded_by_terraform(name: &str) -> bool {
    matches!(name, "terraform.tfvars" | "terraform.tfvars.json") || name.ends_with(".auto.tfvars") || name.ends_with(".auto.tfvars.json")
}

/// The variables files of `dir` (a path as given, `/`-separated), read.
pub fn of_dir(dir: &str) -> Tfvars {
    let mut tfvars = Tfvars::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            tfvars.unread = Some(format!("the directory {dir} cannot be listed ({e})"));
            return tfvars;
        }
    };
    // An entry that cannot be read or named may be a variables file read
    // anywhere in Terraform's order: then no variable is known.
    let mut names: Vec<String> = Vec::new();
    let mut unnamed = false;
    for entry in entries {
        match entry.map(|e| e.file_name().into_string()) {
            Ok(Ok(name)) if loaded_by_terraform(&name) => names.push(name),
            Ok(Ok(_)) => {}
            Ok(Err(name)) if loaded_by_terraform(&name.to_string_lossy()) => {
                unnamed = true;
                tfvars.unread.get_or_insert(format!(
                    "{} in {dir} has a name that is not UTF-8, so it cannot be read",
                    name.to_string_lossy()
                ));
            }
            Ok(Err(_)) => {}
            Err(e) => {
                unnamed = true;
                tfvars
                    .unread
                    .get_or_insert(format!("an entry of the directory {dir} cannot be read ({e})"));
            }
        }
    }
    let rank = |name: &str| match name {
        "terraform.tfvars" => 0,
        "terraform.tfvars.json" => 1,
        _ => 2,
    };
    names.sort_by(|a, b| (rank(a), a).cmp(&(rank(b), b)));
    for name in names {
        let shown = if dir == "." { name.clone() } else { format!("{dir}/{name}") };
        if let Err(why) = read_into(&Path::new(dir).join(&name), &shown, &mut tfvars.values) {
            // It may set again what the files before it set: those values
            // are unknown now; files read after it still set theirs.
            tfvars.values.clear();
            tfvars.unread.get_or_insert(format!("{shown} cannot be read ({why})"));
        }
    }
    if unnamed {
        tfvars.values.clear();
    }
    tfvars
}

fn read_into(path: &Path, shown: &str, values: &mut BTreeMap<String, (String, Assigned)>) -> Result<(), String> {
    let text = bounded::read_small(path)?;
    if shown.ends_with(".json") {
        let object: serde_json::Map<String, Value> = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        for (name, value) in object {
            values.insert(name, (shown.to_string(), Assigned::Json(value)));
        }
    } else {
        let body = hcl_edit::parser::parse_body(&text).map_err(|e| e.message().to_string())?;
        for attribute in body.attributes() {
            values.insert(
                attribute.key.value().as_str().to_string(),
                (shown.to_string(), Assigned::Expression(attribute.value.clone())),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_in_terraforms_order_each_overriding_the_earlier() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
        write("b.auto.tfvars", "email = \"b@example.com\"\n");
        write("a.auto.tfvars.json", r#"{"email": "a@example.com", "team": "sre"}"#);
        write("terraform.tfvars", "email = \"base@example.com\"\nzone = \"example.com\"\n");
        write("other.tfvars", "email = \"only with -var-file\"\n");
        let tfvars = of_dir(dir.path().to_str().expect("utf-8 path"));
        assert!(tfvars.unread.is_none());
        let file_of = |name: &str| tfvars.values[name].0.rsplit('/').next().unwrap_or_default().to_string();
        assert_eq!(file_of("email"), "b.auto.tfvars");
        assert_eq!(file_of("team"), "a.auto.tfvars.json");
        assert_eq!(file_of("zone"), "terraform.tfvars");
    }

    #[test]
    fn a_variables_file_whose_name_is_not_utf8_leaves_every_variable_unknown() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("terraform.tfvars"), "email = \"a@example.com\"\n").expect("write");
        let odd = std::ffi::OsStr::from_bytes(b"\xff.auto.tfvars");
        std::fs::write(dir.path().join(odd), "email = \"b@example.com\"\n").expect("write");
        let tfvars = of_dir(dir.path().to_str().expect("utf-8 path"));
        assert!(
            tfvars.unread.as_deref().is_some_and(|why| why.contains("not UTF-8")),
            "{:?}",
            tfvars.unread
        );
        assert!(tfvars.values.is_empty(), "it may come after terraform.tfvars and set email again");
        // A name that is not UTF-8 and no variables file is none of its business.
        std::fs::remove_file(dir.path().join(odd)).expect("remove");
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"\xff.txt")), "").expect("write");
        assert!(of_dir(dir.path().to_str().expect("utf-8 path")).unread.is_none());
    }

    #[test]
    fn an_unreadable_file_leaves_every_variable_unknown() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("terraform.tfvars"), "email = \n").expect("write");
        let tfvars = of_dir(dir.path().to_str().expect("utf-8 path"));
        assert!(
            tfvars
                .unread
                .as_deref()
                .is_some_and(|why| why.contains("terraform.tfvars cannot be read"))
        );
    }
}
