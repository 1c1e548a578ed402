//! Capture: thresholds, spooling under fragmented and bursty writers, UTF-8 tracking, quota.

use super::{Fixture, args};
use crate::exec::{Capture, CaptureLimits, Captured, Lost};
use crate::store::{RetainedStore, StoreQuota};

/// Write sizes that exercise every boundary: single bytes, primes, pipe-page multiples, bursts.
const SIZES: [usize; 7] = [1, 7, 31, 257, 4093, 16384, 65521];

/// Perl writer: `total` bytes to stdout and to stderr, interleaved, each stream the pattern
/// byte(i) = (i + seed) % 251 (seed 0 stdout, 7 stderr), written with `syswrite` in sizes
/// cycling through the given list.
const WRITER: &str = r#"
my ($total, @sizes) = @ARGV;
my $block = join('', map { chr } 0..250);
my $rep = $block x (int($total / 251) + 2);
my @s = (substr($rep, 0, $total), substr($rep, 7, $total));
my @fh = (\*STDOUT, \*STDERR);
binmode($_) for @fh;
my @pos = (0, 0);
my $k = 0;
while ($pos[0] < $total || $pos[1] < $total) {
    for my $j (0, 1) {
        next if $pos[$j] >= $total;
        my $n = $sizes[$k++ % @sizes];
        $n = $total - $pos[$j] if $n > $total - $pos[$j];
        my $off = 0;
        while ($off < $n) {
            my $w = syswrite($fh[$j], $s[$j], $n - $off, $pos[$j] + $off);
            die "write: $!" unless defined $w;
            $off += $w;
        }
        $pos[$j] += $n;
    }
}
"#;

fn pattern(total: usize, seed: usize) -> Vec<u8> {
    (0..total).map(|i| ((i + seed) % 251) as u8).collect()
}

fn writer(total: usize, sizes: &[usize]) -> crate::protocol::ExecArgs {
    let mut argv = vec!["-e".to_owned(), WRITER.to_owned(), total.to_string()];
    argv.extend(sizes.iter().map(usize::to_string));
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    args("perl", &argv)
}

/// Checks a spooled capture against the expected stream, byte for byte.
fn assert_spooled(c: &Captured, expected: &[u8], limits: CaptureLimits, what: &str) {
    assert_eq!(c.len, expected.len() as u64, "{what}: length");
    assert_eq!(c.digest(), Some(blake3::hash(expected)), "{what}: digest");
    let Capture::Spooled(s) = &c.capture else {
        panic!("{what}: expected a spooled capture, got {:?}", c.capture);
    };
    let on_disk = std::fs::read(s.file.path()).expect("spool file");
    assert!(on_disk == expected, "{what}: spool bytes differ");
    assert_eq!(s.head, expected[..limits.head], "{what}: head sample");
    assert_eq!(
        s.tail,
        expected[expected.len() - limits.tail..],
        "{what}: tail sample"
    );
    assert_eq!(
        s.utf8,
        std::str::from_utf8(expected).is_ok(),
        "{what}: utf8"
    );
}

#[test]
fn two_8_mib_streams_from_a_fragmented_bursty_writer_spool_losslessly() {
    let f = Fixture::new();
    let total = 8 << 20;
    let out = f.run(&writer(total, &SIZES));
    assert!(out.success(), "{:?}", out.kind);
    assert_spooled(&out.stdout, &pattern(total, 0), f.limits, "stdout");
    assert_spooled(&out.stderr, &pattern(total, 7), f.limits, "stderr");
    assert_eq!(f.meter.used(), 2 * total as u64, "every byte is charged");
    assert_eq!(f.spool_files().len(), 2);
    drop(out);
    assert_eq!(f.meter.used(), 0, "dropping the outcome returns the charge");
    assert!(f.spool_files().is_empty(), "and deletes the spool files");
}

#[test]
fn every_write_size_spills_losslessly_with_small_thresholds() {
    let mut f = Fixture::new();
    f.limits = CaptureLimits {
        memory: 64 << 10,
        head: 5000,
        tail: 7000,
    };
    let total = 200_000;
    for size in SIZES {
        let out = f.run(&writer(total, &[size]));
        assert!(out.success());
        let what = format!("write size {size}");
        assert_spooled(&out.stdout, &pattern(total, 0), f.limits, &what);
        assert_spooled(&out.stderr, &pattern(total, 7), f.limits, &what);
    }
}

#[test]
fn the_memory_threshold_is_inclusive() {
    let mut f = Fixture::new();
    f.limits.memory = 100_000;
    let out = f.run(&args("head", &["-c", "100000", "/dev/zero"]));
    assert_eq!(out.stdout.bytes().map(<[u8]>::len), Some(100_000));
    let out = f.run(&args("head", &["-c", "100001", "/dev/zero"]));
    assert!(matches!(out.stdout.capture, Capture::Spooled(_)));
    assert_eq!(out.stdout.len, 100_001);
}

#[test]
fn utf8_validity_is_tracked_across_split_characters_in_spooled_streams() {
    let mut f = Fixture::new();
    f.limits = CaptureLimits {
        memory: 1000,
        head: 100,
        tail: 100,
    };
    let text = "aé€😀×⋯\n".repeat(3000);
    let script = "$| = 1; binmode STDOUT; my $t = shift; \
                  for (my $i = 0; $i < length $t; $i += 7) { syswrite(STDOUT, $t, 7, $i) }";
    let out = f.run(&args("perl", &["-e", script, &text]));
    let expected = text.as_bytes();
    assert_eq!(out.stdout.len, expected.len() as u64);
    let Capture::Spooled(s) = &out.stdout.capture else {
        panic!("spooled expected");
    };
    assert!(s.utf8, "split characters are still valid UTF-8");
    assert_eq!(s.head, expected[..100]);
    let sample = out.stdout.sample().expect("spooled sample");
    assert_eq!(sample.len, expected.len() as u64);
    let projected = crate::reduce::project_sample(&sample, 64).expect("projects");
    let shown = projected.text.expect("text");
    assert!(
        shown.starts_with("aé€") && shown.contains("\n...\n"),
        "{shown:?}"
    );
    assert!(projected.truncated);

    let out = f.run(&args(
        "perl",
        &["-e", "print 'x' x 5000; print \"\\xff\"; print 'y' x 5000"],
    ));
    let Capture::Spooled(s) = &out.stdout.capture else {
        panic!("spooled expected");
    };
    assert!(!s.utf8);
}

#[test]
fn quota_exhaustion_drops_the_stream_and_its_partial_spool_without_blocking_the_child() {
    let mut f = Fixture::with_quota(1 << 20);
    f.limits.memory = 256 << 10;
    let out = f.run(&args(
        "sh",
        &["-c", "head -c 3000000 /dev/zero; echo done >&2"],
    ));
    assert!(out.success(), "the child ran to completion");
    assert_eq!(
        out.stdout.len, 3_000_000,
        "bytes past the quota are drained and counted"
    );
    assert_eq!(out.stdout.lost(), Some(&Lost::OverQuota));
    assert_eq!(out.stdout.digest(), None);
    assert_eq!(
        super::text(&out.stderr),
        "done\n",
        "the other stream is unaffected"
    );
    assert!(
        f.spool_files().is_empty(),
        "the partial spool file is deleted"
    );
    assert_eq!(f.meter.used(), 5, "only stderr stays charged");
    assert_eq!(out.stdout.into_pending().err(), Some(Lost::OverQuota));
}

#[test]
fn captures_become_pending_values_for_the_store() {
    let mut f = Fixture::new();
    f.limits.memory = 1000;
    let out = f.run(&args(
        "sh",
        &["-c", "head -c 5000 /dev/zero; printf err >&2"],
    ));
    let mut store = RetainedStore::new(StoreQuota::default());
    let stdout = out.stdout.into_pending().expect("kept");
    let stderr = out.stderr.into_pending().expect("kept");
    assert_eq!(stdout.body.len(), 5000);
    let aliases = store.retain_all(vec![stdout, stderr]).expect("retained");
    assert_eq!(
        store.get(aliases[1]).map(|b| b.read_all().ok()),
        Some(Some(b"err".to_vec()))
    );
    assert_eq!(
        store
            .get(aliases[0])
            .and_then(|b| b.read_range(4990, 100).ok()),
        Some(vec![0; 10])
    );
    assert_eq!(f.spool_files().len(), 1);
    store.release(aliases[0]).expect("release");
    assert!(
        f.spool_files().is_empty(),
        "releasing the reference deletes the spool file"
    );
}
