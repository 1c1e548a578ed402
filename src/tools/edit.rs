//! Compilation of `{old, new}` text edits into byte-offset edits against the file as last read.

use super::args::TextEdit;

/// One compiled replacement: `len` bytes at `offset` of the original file become `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteEdit {
    /// Byte offset in the original file.
    pub offset: usize,
    /// Number of original bytes replaced.
    pub len: usize,
    /// Replacement text.
    pub new: String,
}

/// Why edits could not be compiled; the message names the edit index for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// An empty `old` would match everywhere.
    #[error("edits[{index}].old is empty; quote the exact existing text to replace")]
    EmptyOld {
        /// Index of the edit.
        index: usize,
    },
    /// `old` does not occur in the file.
    #[error(
        "edits[{index}].old was not found in the file as last read; read the file again and quote its text exactly (including whitespace)"
    )]
    NotFound {
        /// Index of the edit.
        index: usize,
    },
    /// `old` occurs more than once, so the target is ambiguous.
    #[error("edits[{index}].old occurs {count} times (lines {}); include more surrounding text so it occurs exactly once", join_lines(.lines))]
    Ambiguous {
        /// Index of the edit.
        index: usize,
        /// Number of occurrences (overlapping ones included).
        count: usize,
        /// 1-based lines where the first occurrences start.
        lines: Vec<usize>,
    },
    /// Two edits replace overlapping text.
    #[error(
        "edits[{first}] and edits[{second}] overlap (both change bytes near line {line}); merge them into one edit"
    )]
    Overlap {
        /// The edit that starts first.
        first: usize,
        /// The edit that starts inside it.
        second: usize,
        /// 1-based line where the second one starts.
        line: usize,
    },
}

/// At most this many occurrence lines are listed, to keep the message short.
const LISTED_LINES: usize = 5;

fn join_lines(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn line_of(bytes: &[u8], offset: usize) -> usize {
    1 + bytes[..offset].iter().filter(|&&b| b == b'\n').count()
}

/// Compiles edits against `file`: each `old` must occur exactly once; the result is sorted by
/// offset and non-overlapping (touching edits are fine).
pub fn compile_edits(file: &[u8], edits: &[TextEdit]) -> Result<Vec<ByteEdit>, EditError> {
    let mut compiled: Vec<(usize, ByteEdit)> = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        let old = edit.old.as_bytes();
        if old.is_empty() {
            return Err(EditError::EmptyOld { index });
        }
        let mut occurrences = Vec::new();
        let mut from = 0;
        // Restarting one byte after each hit counts overlapping occurrences ("aa" in "aaa" is ambiguous).
        while let Some(found) = memchr::memmem::find(&file[from..], old) {
            occurrences.push(from + found);
            from += found + 1;
        }
        match occurrences.as_slice() {
            [] => return Err(EditError::NotFound { index }),
            [offset] => compiled.push((
                index,
                ByteEdit {
                    offset: *offset,
                    len: old.len(),
                    new: edit.new.clone(),
                },
            )),
            many => {
                let lines = many
                    .iter()
                    .take(LISTED_LINES)
                    .map(|&offset| line_of(file, offset))
                    .collect();
                return Err(EditError::Ambiguous {
                    index,
                    count: many.len(),
                    lines,
                });
            }
        }
    }
    compiled.sort_by_key(|(_, edit)| edit.offset);
    for pair in compiled.windows(2) {
        let (first, a) = &pair[0];
        let (second, b) = &pair[1];
        if b.offset < a.offset + a.len {
            return Err(EditError::Overlap {
                first: *first,
                second: *second,
                line: line_of(file, b.offset),
            });
        }
    }
    Ok(compiled.into_iter().map(|(_, edit)| edit).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old: &str, new: &str) -> TextEdit {
        TextEdit {
            old: old.to_owned(),
            new: new.to_owned(),
        }
    }

    #[test]
    fn single_edit_compiles_to_its_offset() {
        let out = compile_edits(b"fn a() {}\nfn b() {}\n", &[edit("fn b", "fn c")]).unwrap();
        assert_eq!(
            out,
            vec![ByteEdit {
                offset: 10,
                len: 4,
                new: "fn c".into()
            }]
        );
    }

    #[test]
    fn several_edits_are_sorted_by_offset() {
        let file = b"alpha beta gamma";
        let out = compile_edits(
            file,
            &[edit("gamma", "G"), edit("alpha", "A"), edit("beta", "B")],
        )
        .unwrap();
        let offsets: Vec<_> = out
            .iter()
            .map(|e| (e.offset, e.len, e.new.as_str()))
            .collect();
        assert_eq!(offsets, vec![(0, 5, "A"), (6, 4, "B"), (11, 5, "G")]);
    }

    #[test]
    fn touching_edits_are_not_overlapping() {
        let out = compile_edits(b"abcdef", &[edit("def", "x"), edit("abc", "y")]).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!((out[0].offset, out[1].offset), (0, 3));
    }

    #[test]
    fn missing_text_names_the_edit() {
        let err = compile_edits(b"hello", &[edit("hello", "x"), edit("bye", "y")]).unwrap_err();
        assert_eq!(err, EditError::NotFound { index: 1 });
        assert!(err.to_string().starts_with("edits[1].old was not found"));
    }

    #[test]
    fn repeated_text_is_ambiguous_with_lines() {
        let err = compile_edits(b"x = 1\ny = 2\nx = 1\n", &[edit("x = 1", "x = 3")]).unwrap_err();
        assert_eq!(
            err,
            EditError::Ambiguous {
                index: 0,
                count: 2,
                lines: vec![1, 3]
            }
        );
        assert!(
            err.to_string().contains("occurs 2 times (lines 1, 3)"),
            "{err}"
        );
    }

    #[test]
    fn self_overlapping_occurrences_count() {
        let err = compile_edits(b"aaa", &[edit("aa", "b")]).unwrap_err();
        assert_eq!(
            err,
            EditError::Ambiguous {
                index: 0,
                count: 2,
                lines: vec![1, 1]
            }
        );
    }

    #[test]
    fn overlapping_edits_are_rejected() {
        let err = compile_edits(
            b"one two three",
            &[edit("two three", "x"), edit("one two", "y")],
        )
        .unwrap_err();
        assert_eq!(
            err,
            EditError::Overlap {
                first: 1,
                second: 0,
                line: 1
            }
        );
        assert!(err.to_string().contains("edits[1] and edits[0] overlap"));
    }

    #[test]
    fn empty_old_is_rejected() {
        assert_eq!(
            compile_edits(b"abc", &[edit("", "x")]),
            Err(EditError::EmptyOld { index: 0 })
        );
    }

    #[test]
    fn multibyte_text_uses_byte_offsets() {
        let file = "привет, мир\nπ = 3.14\n".as_bytes();
        let out = compile_edits(file, &[edit("мир", "world"), edit("π", "pi")]).unwrap();
        assert_eq!(
            out[0],
            ByteEdit {
                offset: 14,
                len: 6,
                new: "world".into()
            }
        );
        assert_eq!(
            out[1],
            ByteEdit {
                offset: 21,
                len: 2,
                new: "pi".into()
            }
        );
        assert_eq!(&file[14..20], "мир".as_bytes());
    }

    #[test]
    fn non_utf8_files_still_match_bytes() {
        let out = compile_edits(b"\xff\xfe key=1", &[edit("key=1", "key=2")]).unwrap();
        assert_eq!(out[0].offset, 3);
    }
}
