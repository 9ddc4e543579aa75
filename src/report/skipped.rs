//! The files a run left out, for people: one line per file while they are
//! few, one line per reason with a count when many files share it (a
//! repository's fixtures, a tool's cache) — `--show-files` lists them all.
//! Machine formats always list every file.

use crate::text::error::InputError;

/// More files than this with one reason are counted on one line.
const LISTED_PER_REASON: usize = 3;

/// The lines, in the order the files were met: `place: skipped, not
/// analysed: reason`, or `N files skipped, not analysed: reason (…)`.
pub fn lines(skipped: &[InputError], show_files: bool) -> Vec<String> {
    let place = |e: &InputError| {
        if e.resource && e.has_place() {
            format!("{}:{}:{}", e.file, e.line, e.column)
        } else {
            e.file.clone()
        }
    };
    let one = |e: &InputError| format!("{}: skipped, not analysed: {}", place(e), e.skip_reason());
    if show_files {
        return skipped.iter().map(one).collect();
    }
    // Reasons in the order first met; a resource of an analysed file is always its own line.
    let mut reasons: Vec<(&str, Vec<&InputError>)> = Vec::new();
    for e in skipped.iter().filter(|e| !e.resource) {
        match reasons.iter_mut().find(|(r, _)| *r == e.skip_reason()) {
            Some((_, files)) => files.push(e),
            None => reasons.push((e.skip_reason(), vec![e])),
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (reason, files) in &reasons {
        if files.len() <= LISTED_PER_REASON {
            out.extend(files.iter().map(|e| one(e)));
        } else {
            let first: Vec<&str> = files.iter().take(2).map(|e| e.file.as_str()).collect();
            out.push(format!(
                "{} files skipped, not analysed: {reason} (first {}; --show-files lists them all)",
                files.len(),
                first.join(", ")
            ));
        }
    }
    out.extend(skipped.iter().filter(|e| e.resource).map(one));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(file: &str, reason: &str) -> InputError {
        InputError::at_line_column(file, 1, 1, "").not_analysed(reason)
    }

    #[test]
    fn many_files_of_one_reason_are_one_line() {
        let mut all: Vec<InputError> = (0..205).map(|i| skipped(&format!("node/{i}.json"), "not an export")).collect();
        all.push(skipped("tsconfig.json", "JSON with comments"));
        let grouped = lines(&all, false);
        assert_eq!(
            grouped,
            [
                "205 files skipped, not analysed: not an export (first node/0.json, node/1.json; --show-files lists them all)",
                "tsconfig.json: skipped, not analysed: JSON with comments",
            ]
        );
        assert_eq!(lines(&all, true).len(), 206);
    }
}
