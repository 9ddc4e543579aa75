//! Pointer → byte range for YAML files, from one pass over the parser's
//! events. Built only for YAML files that have findings, once per file, and
//! only for the nodes findings point at and their parents: a subtree no
//! finding is in is passed over without building its pointers.

use std::collections::{HashMap, HashSet};

use serde_saphyr::granit_parser::{Event, Parser};

use crate::text::pointer::push_token;

enum Frame {
    Map {
        pointer_len: usize,
        key: Option<String>,
        awaiting_key: bool,
    },
    Seq {
        pointer_len: usize,
        index: usize,
    },
    /// A collection nothing inside of which is pointed at: a mapping key, or
    /// a subtree no wanted pointer is in.
    Skipped {
        depth: usize,
    },
}

/// Byte ranges of every node of the first document, by JSON pointer.
pub fn node_ranges(text: &str) -> HashMap<String, (usize, usize)> {
    node_ranges_of(text, None)
}

/// The pointers `fields` and every parent of each (a field that is absent
/// is located at its nearest parent).
pub fn with_parents<'p>(fields: impl IntoIterator<Item = &'p str>) -> HashSet<String> {
    let mut keep = HashSet::new();
    for field in fields {
        let mut p = field;
        while keep.insert(p.to_string()) {
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => break,
            }
        }
    }
    keep.insert(String::new());
    keep
}

/// Byte ranges of the nodes in `keep` (every node when `None`), by JSON
/// pointer; `keep` must hold each node's parents too ([`with_parents`]).
pub fn node_ranges_of(text: &str, keep: Option<&HashSet<String>>) -> HashMap<String, (usize, usize)> {
    pass(text, keep, false).ranges
}

/// What one pass over a text's events found.
struct Pass {
    ranges: HashMap<String, (usize, usize)>,
    /// Where the first node ended, when it did (a pass of one node stops there).
    root_end: Option<usize>,
    /// Whether the first node carries an anchor (`&name`).
    root_anchored: bool,
}

fn pass(text: &str, keep: Option<&HashSet<String>>, one_node: bool) -> Pass {
    let kept = |pointer: &str| keep.is_none_or(|k| k.contains(pointer));
    let mut ranges = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut pointer = String::new();
    let mut root_end = None;
    let mut root_anchored = false;
    let mut root_seen = false;
    for item in Parser::new_from_str(text) {
        // The file already parsed through serde-saphyr; an error here can only
        // be past the first document, which we do not need (or, in a record's
        // stretch, past its end: see `record_field`).
        let Ok((event, span)) = item else { break };
        let mut start = span.start.byte_offset().unwrap_or(0);
        let end = span.end.byte_offset().unwrap_or(start).max(start);
        if matches!(event, Event::SequenceStart(..)) {
            start = block_sequence_dash(text, start);
        }
        let (is_node, opens) = match &event {
            Event::Scalar(..) | Event::Alias(..) => (true, false),
            Event::MappingStart(..) | Event::SequenceStart(..) => (true, true),
            Event::MappingEnd | Event::SequenceEnd => {
                close(&mut stack, &mut pointer);
                if stack.is_empty() && one_node {
                    root_end = Some(start);
                    break;
                }
                continue;
            }
            Event::DocumentEnd => break,
            _ => continue,
        };
        if !is_node {
            continue;
        }
        if !root_seen {
            root_seen = true;
            root_anchored = matches!(event, Event::MappingStart(_, anchor, _) | Event::SequenceStart(_, anchor, _) if anchor != 0);
            if one_node && !opens {
                ranges.insert(String::new(), (start, end));
                root_end = Some(end);
                break;
            }
        }
        if let Some(Frame::Skipped { depth }) = stack.last_mut() {
            if opens {
                *depth += 1;
            }
            continue;
        }
        if let Some(Frame::Map {
            awaiting_key: true, key, ..
        }) = stack.last_mut()
        {
            *key = match &event {
                Event::Scalar(value, ..) => Some(value.to_string()),
                _ => None,
            };
            if let Some(Frame::Map { awaiting_key, .. }) = stack.last_mut() {
                *awaiting_key = false;
            }
            if opens {
                stack.push(Frame::Skipped { depth: 1 });
            }
            continue;
        }
        // A value: extend the pointer with its key or index.
        let parent_len = pointer.len();
        match stack.last_mut() {
            Some(Frame::Map { key, awaiting_key, .. }) => {
                if let Some(k) = key.take() {
                    push_token(&mut pointer, &k);
                } else {
                    pointer.push_str("/\u{0}");
                }
                *awaiting_key = true;
            }
            Some(Frame::Seq { index, .. }) => {
                use std::fmt::Write;
                let _ = write!(pointer, "/{index}");
                *index += 1;
            }
            _ => {}
        }
        if !kept(&pointer) {
            pointer.truncate(parent_len);
            if opens {
                stack.push(Frame::Skipped { depth: 1 });
            }
            continue;
        }
        ranges.entry(pointer.clone()).or_insert((start, end));
        if opens {
            let frame = match event {
                Event::MappingStart(..) => Frame::Map {
                    pointer_len: parent_len,
                    key: None,
                    awaiting_key: true,
                },
                _ => Frame::Seq {
                    pointer_len: parent_len,
                    index: 0,
                },
            };
            stack.push(frame);
        } else {
            pointer.truncate(parent_len);
        }
    }
    Pass {
        ranges,
        root_end,
        root_anchored,
    }
}

/// Where a sequence whose start the parser gives at `start` begins: a block
/// sequence not indented below its key (`result:\n- id: a`) is given at its
/// first item's content, two columns right of its `-`; it begins at the `-`.
fn block_sequence_dash(text: &str, start: usize) -> usize {
    let Some(before) = text.get(..start) else { return start };
    if text[start..].starts_with(['-', '[']) {
        return start;
    }
    let gap = before.trim_end_matches([' ', '\t']);
    if gap.len() < before.len() && gap.ends_with('-') {
        let dash = gap.len() - 1;
        // Only an indicator: a `-` alone after the line's indentation or another indicator.
        let line = &gap[gap[..dash].rfind('\n').map_or(0, |i| i + 1)..dash];
        if line.bytes().all(|b| b == b' ' || b == b'-') {
            return dash;
        }
    }
    start
}

/// The field `path` of the YAML record whose first key starts at byte `key`
/// of `text`: its matched pointer (relative to the record, the nearest
/// existing parent when the field is absent) and byte range. Only the
/// record's own stretch is parsed, so a file's findings are located without
/// a pass over the whole file (that pass was 1.6 s of 5.3 s at
/// 100 000 hostnames, most of whose records have no finding).
///
/// `None` when the stretch cannot stand alone, and the caller then takes the
/// whole file's pass: a key not at the start of a block mapping's line or
/// after a flow mapping's `{` (a quoted key, a tag or an anchor before it),
/// or a record whose first node is anchored (its keys may be another
/// record's, through an alias or a merge).
pub fn record_field(text: &str, key: usize, path: &str) -> Option<(String, usize, usize)> {
    let line_start = text.get(..key)?.rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..key];
    let flow = before.trim_end();
    let start = if flow.ends_with('{') && flow[..flow.len() - 1].bytes().all(|b| b == b' ' || b == b'-') {
        line_start + flow.len() - 1
    } else if before.bytes().all(|b| b == b' ' || b == b'-') {
        // A key alone on its line: what comes before may be the mapping's
        // own tag or anchor on the line above, which the stretch would lose.
        let above = text[..line_start].trim_end_matches([' ', '\n', '\r']);
        let starts_here = before.contains('-') || above.is_empty() || above.ends_with('-') || above.ends_with(':');
        if !starts_here {
            return None;
        }
        key
    } else {
        return None;
    };
    // The stretch is parsed with its first line indented as in the file
    // (past `- ` indicators), so later lines keep their meaning.
    let pad = start - line_start;
    let keep = with_parents([path]);
    let mut window = 4096usize;
    while window <= LONGEST_STRETCH {
        let mut end = start.saturating_add(window).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let mut stretch = " ".repeat(pad);
        stretch.push_str(&text[start..end]);
        let found = pass(&stretch, Some(&keep), true);
        if found.root_anchored {
            return None;
        }
        // Ended before the stretch did: the record is whole in it. Ending at
        // the stretch's end may be the cut, unless the text ends there too.
        let whole = found.root_end.is_some_and(|e| e < stretch.len() || end == text.len());
        if whole {
            // Offsets in the stretch, past the padding, are offsets from `start`.
            let (pointer, s, e) = crate::input::locate::locate_in_map(&found.ranges, path);
            return Some((pointer, s.saturating_sub(pad) + start, e.saturating_sub(pad) + start));
        }
        if end == text.len() {
            return None;
        }
        window = window.saturating_mul(4);
    }
    None
}

/// The longest stretch a record is read in alone (a record is a few
/// kilobytes; a chain of certificates, tens): past it, or when a stretch
/// does not parse for another reason than its cut, the whole file's pass
/// answers instead of copies of the rest of the file.
const LONGEST_STRETCH: usize = 16 << 20;

fn close(stack: &mut Vec<Frame>, pointer: &mut String) {
    match stack.last_mut() {
        Some(Frame::Skipped { depth }) => {
            *depth -= 1;
            if *depth == 0 {
                stack.pop();
            }
        }
        Some(Frame::Map { pointer_len, .. }) | Some(Frame::Seq { pointer_len, .. }) => {
            pointer.truncate(*pointer_len);
            stack.pop();
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_at<'t>(text: &'t str, ranges: &HashMap<String, (usize, usize)>, p: &str) -> &'t str {
        let (s, e) = ranges[p];
        &text[s..e]
    }

    #[test]
    fn block_and_flow_nodes_get_pointers() {
        let text = "result:\n  - id: abc\n    filters: {pool_id: [x, \"y\"]}\n  - id: def\n";
        let r = node_ranges(text);
        assert_eq!(text_at(text, &r, "/result/0/id"), "abc");
        assert_eq!(text_at(text, &r, "/result/0/filters/pool_id/1"), "\"y\"");
        assert_eq!(text_at(text, &r, "/result/1/id"), "def");
        assert!(r.contains_key("/result"));
    }

    #[test]
    fn a_block_sequence_starts_at_its_first_dash() {
        let text = "hosts:\n  - a.example.com\n  - b.example.com\nnext: 1\n";
        let r = node_ranges(text);
        let (start, _) = r["/hosts"];
        assert_eq!(start, text.find('-').expect("dash"), "{:?}", &text[start..]);
        let seq = "- id: a\n- id: b\n";
        assert_eq!(node_ranges(seq)[""].0, 0);
        // Not indented below its key, as yq and PyYAML write it.
        let flush = "result:\n- id: a\n  hosts:\n  - x.example\n";
        let r = node_ranges(flush);
        assert_eq!(r["/result"].0, flush.find("- id").expect("dash"));
        assert_eq!(r["/result/0/hosts"].0, flush.find("- x").expect("dash"));
        assert_eq!(text_at(flush, &r, "/result/0/id"), "a", "a mapping item starts at its first key");
        let nested = "- - a\n  - b\n";
        let r = node_ranges(nested);
        assert_eq!((r[""].0, r["/0"].0), (0, 2));
    }

    #[test]
    fn complex_keys_do_not_shift_later_members() {
        let text = "? [a, b]\n: 1\nc: 2\n";
        let r = node_ranges(text);
        assert_eq!(text_at(text, &r, "/c"), "2");
    }

    #[test]
    fn only_the_wanted_nodes_and_their_parents_are_kept_at_the_same_ranges() {
        let text = "result:\n  - id: abc\n    ssl: {certificate_authority: lets_encrypt}\n  - id: def\n    ssl:\n      method: http\n";
        let all = node_ranges(text);
        let keep = with_parents(["/result/1/ssl/certificate_authority", "/result/0/id"]);
        let some = node_ranges_of(text, Some(&keep));
        let mut pointers: Vec<&str> = some.keys().map(String::as_str).collect();
        pointers.sort();
        // The absent field's parents are there to fall back on.
        assert_eq!(pointers, ["", "/result", "/result/0", "/result/0/id", "/result/1", "/result/1/ssl"]);
        for (p, range) in &some {
            assert_eq!(all[p], *range, "{p}");
        }
    }

    /// Every node of every record found from the record's first key alone at
    /// the range the whole file's pass gives it.
    fn agrees_with_the_whole_pass(text: &str, list: &str, keys: &[&str]) {
        let all = node_ranges(text);
        let mut from = 0;
        for (i, key) in keys.iter().enumerate() {
            let at = from + text[from..].find(key).expect("key");
            from = at + 1;
            let record = format!("{list}/{i}");
            let mut fields: Vec<&String> = all
                .keys()
                .filter(|p| p.starts_with(&format!("{record}/")) || **p == record)
                .collect();
            fields.sort();
            assert!(fields.len() > 1, "{record}");
            for field in fields {
                let path = &field[record.len()..];
                let found = record_field(text, at, path).unwrap_or_else(|| panic!("{record}{path}: not alone"));
                assert_eq!(
                    (found.0.as_str(), found.1, found.2),
                    (path, all[field].0, all[field].1),
                    "{record}{path}"
                );
            }
        }
    }

    #[test]
    fn a_record_is_located_from_its_first_key_alone() {
        let text = "result:\n  - id: a\n    hostname: a.example\n    ssl:\n      method: http\n      certificate_authority: \"\"\n  - id: b\n    hostname: 'b.example'\n    ssl: {method: txt, wildcard: false}\n  - {id: c, hostname: c.example,\n     ssl: {method: http}}\n  -   id: d\n      hostname: |\n        folded\n        text\n      ssl:\n        - x\n        - y\n";
        agrees_with_the_whole_pass(text, "/result", &["id: a", "id: b", "id: c", "id: d"]);
        // A bundle's list under a zone, records at another depth.
        let bundle = "zones:\n  - name: example.com\n    custom_hostnames:\n      - id: h1\n        ssl:\n          certificate_authority: lets_encrypt\n      - id: h2\n        hostname: x.example\nnext: 1\n";
        agrees_with_the_whole_pass(bundle, "/zones/0/custom_hostnames", &["id: h1", "id: h2"]);
        // An absent field: its nearest parent in the record.
        let at = text.find("id: b").expect("b");
        let (pointer, start, end) = record_field(text, at, "/ssl/certificate_authority").expect("alone");
        assert_eq!(pointer, "/ssl");
        assert!(text[start..].starts_with("{method: txt"), "{:?}", &text[start..end]);
        let (pointer, start, end) = record_field(text, at, "/nothing/here").expect("alone");
        assert_eq!(pointer, "");
        assert!(text[start..].starts_with("id: b"), "{:?}", &text[start..end]);
    }

    #[test]
    fn a_record_longer_than_the_first_stretch_is_read_whole() {
        let pem: String = (0..500)
            .map(|i| format!("        line{i:04}-abcdefghijklmnopqrstuvwxyz\n"))
            .collect();
        let text = format!("result:\n  - id: a\n    certificate: |\n{pem}    hostname: last.example\n  - id: b\n    hostname: b.example\n");
        assert!(text.len() > 4 * 4096);
        agrees_with_the_whole_pass(&text, "/result", &["id: a", "id: b"]);
        // The last record, whose stretch ends with the text.
        let last = "- id: z\n  hostname: z.example";
        agrees_with_the_whole_pass(last, "", &["id: z"]);
    }

    #[test]
    fn a_record_that_cannot_stand_alone_is_left_to_the_whole_pass() {
        // Its first key quoted, tagged or after an anchor: not at a line's start.
        for (text, key) in [
            ("result:\n  - \"id\": a\n    hostname: x\n", "id\""),
            ("result:\n  - !!map\n    id: a\n", "id: a"),
            ("result:\n  - &rec id: a\n", "id: a"),
            ("result:\n  - &rec\n    id: a\n", "id: a"),
            ("result:\n  -\n    # a comment\n    id: a\n", "id: a"),
        ] {
            let at = text.find(key).expect("key");
            assert_eq!(record_field(text, at, "/hostname"), None, "{text}");
        }
        // Anchored: another record may be it (an alias) or take its keys (a merge).
        let anchored = "base: &b\n  id: a\n  hostname: x\nresult:\n  - *b\n";
        let at = anchored.find("id: a").expect("key");
        assert_eq!(record_field(anchored, at, "/hostname"), None);
        // A record whose stretch does not parse at all.
        let broken = "result:\n  - id: a\n    hostname: [unclosed\n";
        assert_eq!(record_field(broken, broken.find("id: a").expect("key"), "/hostname"), None);
    }
}
