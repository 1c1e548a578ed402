use super::*;

/// Straightforward reference: every K and every copy compared line by line at every position.
pub(crate) fn reference(text: &str) -> String {
    let all: Vec<&str> = text.split_inclusive('\n').collect();
    let complete = if text.ends_with('\n') || text.is_empty() {
        all.len()
    } else {
        all.len() - 1
    };
    if complete < 4 {
        return text.to_string();
    }
    let mut out = String::new();
    let mut i = 0;
    while i < complete {
        let remaining = complete - i;
        let mut best: Option<(usize, usize, usize)> = None;
        for k in 2..=32.min(remaining / 2) {
            let block = &all[i..i + k];
            let mut n = 1;
            while i + (n + 1) * k <= complete && all[i + n * k..i + (n + 1) * k] == *block {
                n += 1;
            }
            let bytes: usize = block.iter().map(|l| l.len()).sum();
            let omitted = (n - 1) * bytes;
            let marker = format!("×{n}#{k}\n").len();
            if n < 2 || marker >= omitted {
                continue;
            }
            let saving = omitted - marker;
            let better = match best {
                None => true,
                Some((s, bk, bn)) => saving > s || (saving == s && (k < bk || (k == bk && n > bn))),
            };
            if better {
                best = Some((saving, k, n));
            }
        }
        match best {
            Some((_, k, n)) => {
                out.extend(all[i..i + k].iter().copied());
                out.push_str(&format!("×{n}#{k}\n"));
                i += n * k;
            }
            None => {
                out.push_str(all[i]);
                i += 1;
            }
        }
    }
    out.extend(all[complete..].iter().copied());
    out
}

fn run(text: &str) -> Cow<'_, str> {
    let lines = Lines::split(text, false);
    let complete = lines.complete();
    if complete < MIN_LINES {
        return Cow::Borrowed(text);
    }
    collapse_blocks(&lines, &lines.fingerprints(complete, false), false)
}

/// The scan with every line given the same fingerprint, so every proposal is a collision that
/// only byte verification can sort out.
fn run_colliding(text: &str, parallel: bool) -> Cow<'_, str> {
    let lines = Lines::split(text, parallel);
    let complete = lines.complete();
    if complete < MIN_LINES {
        return Cow::Borrowed(text);
    }
    collapse_blocks(&lines, &vec![7; complete], parallel)
}

/// A small deterministic generator (xorshift) for test inputs.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn worked_example() {
    let text = "compile crate-a\nlink crate-a\n".repeat(6);
    assert_eq!(run(&text), "compile crate-a\nlink crate-a\n×6#2\n");
}

#[test]
fn needs_four_complete_lines() {
    let text = "compile crate-a\nlink crate-a\ncompile crate-a\nlink crate-a";
    assert!(matches!(run(text), Cow::Borrowed(_)));
    assert_eq!(
        run(&format!("{text}\n")),
        "compile crate-a\nlink crate-a\n×2#2\n"
    );
}

#[test]
fn marker_must_be_shorter() {
    // `×2#2\n` is 6 bytes: omitting `ab\ncd\n` (6 B) saves nothing, `abc\ncd\n` (7 B) saves 1.
    assert!(matches!(run("ab\ncd\nab\ncd\n"), Cow::Borrowed(_)));
    assert_eq!(run("abc\ncd\nabc\ncd\n"), "abc\ncd\n×2#2\n");
}

#[test]
fn unterminated_last_line_is_never_part_of_a_block() {
    assert_eq!(run("abc\ncd\nabc\ncd\nabc\ncd"), "abc\ncd\n×2#2\nabc\ncd");
}

#[test]
fn ties_prefer_the_smaller_k() {
    // Nine equal lines: K=2 (N=4) and K=3 (N=3) both omit 12 bytes behind a 6-byte marker.
    assert_eq!(run(&"a\n".repeat(9)), "a\na\n×4#2\na\n");
    // Fifteen: K=2 (N=7) and K=3 (N=5) both save 30.
    assert_eq!(run(&"bb\n".repeat(15)), "bb\nbb\n×7#2\nbb\n");
    assert_eq!(reference(&"bb\n".repeat(15)), "bb\nbb\n×7#2\nbb\n");
}

#[test]
fn greatest_saving_wins_over_smaller_k() {
    // At line 0, K=2 (`aaa`,`bbb` twice) saves 8 − 6 = 2 bytes; K=5 saves 22 − 6 = 16.
    let text = "aaa\nbbb\naaa\nbbb\nccccc\n".repeat(2) + "end\n";
    assert_eq!(run(&text), "aaa\nbbb\naaa\nbbb\nccccc\n×2#5\nend\n");
    assert_eq!(run(&text), reference(&text));
}

#[test]
fn blocks_up_to_32_lines() {
    let block: String = (0..32).map(|i| format!("step {i}\n")).collect();
    assert_eq!(run(&block.repeat(3)), format!("{block}×3#32\n"));
    // 33-line blocks are beyond K's range (but their inner structure is not repetitive).
    let block: String = (0..33).map(|i| format!("step {i}\n")).collect();
    assert!(matches!(run(&block.repeat(3)), Cow::Borrowed(_)));
}

#[test]
fn matches_reference_on_random_inputs() {
    let vocabulary = [
        "a\n",
        "bb\n",
        "\n",
        "ccc\n",
        "é\n",
        "x×2\n",
        "long line here\n",
    ];
    let mut rng = Rng(0x5eed);
    for round in 0..3000 {
        let period = 1 + rng.below(9);
        let base: Vec<&str> = (0..period).map(|_| vocabulary[rng.below(7)]).collect();
        let len = rng.below(80);
        let mut text: String = (0..len)
            .map(|j| {
                if rng.below(12) == 0 {
                    vocabulary[rng.below(7)]
                } else {
                    base[j % period]
                }
            })
            .collect();
        if rng.below(3) == 0 {
            text.push_str("tail");
        }
        let expected = reference(&text);
        assert_eq!(run(&text), expected, "round {round}: {text:?}");
        assert_eq!(
            run_colliding(&text, false),
            expected,
            "round {round}: {text:?}"
        );
    }
}

#[test]
fn collisions_are_resolved_on_large_blocks() {
    // A 1 MiB+ repetition takes the parallel verification path.
    let block = format!("{}\n{}\n", "p".repeat(4000), "q".repeat(4000));
    let mut text = block.repeat(140);
    text.push_str(&format!(
        "{}\n{}\nend\n",
        "p".repeat(4000),
        "r".repeat(4000)
    ));
    let expected = reference(&text);
    let Ok(plane) = ComputePlane::new(2) else {
        panic!("pool");
    };
    assert_eq!(plane.install(|| run_colliding(&text, true)), expected);
    assert_eq!(run(&text), expected);
}
