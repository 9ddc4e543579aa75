//! Pointer → byte range for YAML files, from one pass over the parser's
//! events. Built only for YAML files that have findings, once per file, and
//! only for the nodes findings point at and their parents: a subtree no
//! finding is in is passed over without building its pointers.

use std::collections::{HashMap, HashSet};

use serde_saphyr::granit_parser::{Event, Parser};

use super::pointer::push_token;

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
    let kept = |pointer: &str| keep.is_none_or(|k| k.contains(pointer));
    let mut ranges = HashMap::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut pointer = String::new();
    for item in Parser::new_from_str(text) {
        // The file already parsed through serde-saphyr; an error here can only
        // be past the first document, which we do not need.
        let Ok((event, span)) = item else { break };
        let start = span.start.byte_offset().unwrap_or(0);
        let end = span.end.byte_offset().unwrap_or(start).max(start);
        let (is_node, opens) = match &event {
            Event::Scalar(..) | Event::Alias(..) => (true, false),
            Event::MappingStart(..) | Event::SequenceStart(..) => (true, true),
            Event::MappingEnd | Event::SequenceEnd => {
                close(&mut stack, &mut pointer);
                continue;
            }
            Event::DocumentEnd => break,
            _ => continue,
        };
        if !is_node {
            continue;
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
    ranges
}

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
}
