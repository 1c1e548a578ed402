use super::testutil::Fixture;
use super::*;

#[test]
fn logical_path_syntax() {
    let long = "a".repeat(MAX_LOGICAL_PATH_BYTES + 1);
    let max = "a".repeat(MAX_LOGICAL_PATH_BYTES);
    let cases: &[(&str, Result<(), PathError>)] = &[
        (".", Ok(())),
        ("a", Ok(())),
        ("src/lib.rs", Ok(())),
        (".hidden/x", Ok(())),
        ("a/.../b", Ok(())),
        ("a..b", Ok(())),
        (&max, Ok(())),
        ("", Err(PathError::Empty)),
        (&long, Err(PathError::TooLong(MAX_LOGICAL_PATH_BYTES + 1))),
        ("../x", Err(PathError::DotDotComponent)),
        ("a/..", Err(PathError::DotDotComponent)),
        ("..", Err(PathError::DotDotComponent)),
        ("/etc/x", Err(PathError::LeadingSlash)),
        ("/", Err(PathError::LeadingSlash)),
        ("a//b", Err(PathError::EmptyComponent)),
        ("C:/x", Err(PathError::Colon)),
        ("a:b", Err(PathError::Colon)),
        ("a\\b", Err(PathError::Backslash)),
        ("a\0b", Err(PathError::Nul)),
        ("a/", Err(PathError::TrailingSlash)),
        ("./a", Err(PathError::DotComponent)),
        ("a/./b", Err(PathError::DotComponent)),
        ("a/.", Err(PathError::DotComponent)),
    ];
    for (path, expected) in cases {
        assert_eq!(check_logical_path(path), *expected, "path {path:?}");
    }
}

#[test]
fn hidden_names() {
    assert!(is_hidden(".git"));
    assert!(is_hidden(".ash"));
    assert!(!is_hidden("src"));
    assert!(!is_hidden("a.b"));
}

#[test]
fn join_logical_paths() {
    assert_eq!(join_logical(".", "a"), "a");
    assert_eq!(join_logical("a/b", "c"), "a/b/c");
}

#[test]
fn root_is_canonicalised() {
    let f = Fixture::new();
    f.symlink(f.ws.root(), "self");
    let via_link = Workspace::new(f.ws.root().join("self")).unwrap();
    assert_eq!(via_link.root(), f.ws.root());
    f.file("file", b"x");
    assert!(Workspace::new(f.ws.root().join("file")).is_err());
    assert!(Workspace::new(f.ws.root().join("missing")).is_err());
}

fn resolve_code(ws: &Workspace, path: &str) -> Result<String, u16> {
    ws.resolve(path)
        .map(|r| r.logical)
        .map_err(|e| e.code().as_u16())
}

#[test]
fn resolution_outcomes() {
    let f = Fixture::with_files(&[("src/lib.rs", b"x"), ("top.txt", b"t")]);
    std::fs::write(f.outside("secret"), b"s").unwrap();
    f.symlink("src", "srclink");
    f.symlink("src/lib.rs", "inlink");
    f.symlink(f.outside("secret"), "abs-escape");
    f.symlink("../secret", "rel-escape");
    f.symlink("..", "parent");
    f.symlink("missing-target", "dangling");
    f.symlink(f.ws.root().join("src"), "abs-inside");
    let cases: &[(&str, Result<&str, u16>)] = &[
        (".", Ok(".")),
        ("src", Ok("src")),
        ("src/lib.rs", Ok("src/lib.rs")),
        ("srclink", Ok("src")),
        ("srclink/lib.rs", Ok("src/lib.rs")),
        ("inlink", Ok("src/lib.rs")),
        ("abs-inside", Ok("src")),
        ("abs-escape", Err(200)),
        ("rel-escape", Err(200)),
        ("parent", Err(200)),
        ("parent/ws/top.txt", Ok("top.txt")),
        ("missing", Err(201)),
        ("src/missing.rs", Err(201)),
        ("top.txt/x", Err(201)),
        ("dangling", Err(201)),
        ("../x", Err(100)),
        ("/etc/passwd", Err(100)),
        ("a//b", Err(100)),
        ("C:/x", Err(100)),
    ];
    for (path, expected) in cases {
        let expected = expected.map(str::to_owned);
        assert_eq!(resolve_code(&f.ws, path), expected, "path {path:?}");
    }
}

#[test]
fn resolution_reports_requested_path_and_symlink_root() {
    let f = Fixture::with_files(&[("src/lib.rs", b"x")]);
    f.symlink("src/lib.rs", "inlink");
    let link = f.ws.resolve("inlink").unwrap();
    assert_eq!(link.requested, "inlink");
    assert_eq!(link.logical, "src/lib.rs");
    assert!(link.requested_is_symlink);
    assert_eq!(link.abs, f.ws.root().join("src/lib.rs"));
    let plain = f.ws.resolve("src/lib.rs").unwrap();
    assert!(!plain.requested_is_symlink);
    assert!(!f.ws.resolve(".").unwrap().requested_is_symlink);
}

#[test]
fn error_carries_path_and_message() {
    let f = Fixture::new();
    let err = f.ws.resolve("nope/x").unwrap_err();
    assert_eq!(err.path(), Some("nope/x"));
    assert!(err.to_string().contains("nope/x"), "{err}");
    let err = f.ws.resolve("a//b").unwrap_err();
    assert_eq!(
        err,
        FsError::InvalidPath {
            path: "a//b".into(),
            reason: PathError::EmptyComponent
        }
    );
}

#[test]
fn reserved_state_dir_requires_exact_marker() {
    let markers: &[(&[u8], bool)] = &[
        (STATE_FORMAT_MARKER, true),
        (b"ash-workspace-state-v1", false),
        (b"ash-workspace-state-v1\n\n", false),
        (b"ash-workspace-state-v2\n", false),
        (b"", false),
    ];
    for (content, reserved) in markers {
        let f = Fixture::with_files(&[(".ash/FORMAT", content), (".ash/data", b"d")]);
        assert_eq!(f.ws.has_state_dir(), *reserved, "marker {content:?}");
        for path in [".ash", ".ash/data", ".ash/FORMAT", ".ash/missing"] {
            let got =
                f.ws.resolve(path)
                    .map(|_| ())
                    .map_err(|e| e.code().as_u16());
            let expected = if *reserved {
                Err(300)
            } else if path == ".ash/missing" {
                Err(201)
            } else {
                Ok(())
            };
            assert_eq!(got, expected, "marker {content:?} path {path}");
        }
    }
}

#[test]
fn reserved_only_at_the_root_and_through_symlinks() {
    let f = Fixture::with_files(&[("src/.ash/FORMAT", STATE_FORMAT_MARKER), ("x.ash", b"")]);
    f.mark_state_dir();
    f.symlink(".ash", "state-link");
    f.dir(".ashes");
    assert_eq!(resolve_code(&f.ws, "src/.ash"), Ok("src/.ash".into()));
    assert_eq!(resolve_code(&f.ws, ".ashes"), Ok(".ashes".into()));
    assert_eq!(resolve_code(&f.ws, "x.ash"), Ok("x.ash".into()));
    assert_eq!(resolve_code(&f.ws, "state-link"), Err(300));
    assert_eq!(resolve_code(&f.ws, "state-link/FORMAT"), Err(300));
}

#[test]
fn symlinked_state_dir_is_not_reserved() {
    let f = Fixture::with_files(&[("real/FORMAT", STATE_FORMAT_MARKER)]);
    f.symlink("real", ".ash");
    assert!(!f.ws.has_state_dir());
    assert_eq!(resolve_code(&f.ws, ".ash/FORMAT"), Ok("real/FORMAT".into()));
}

#[test]
fn marker_must_be_a_regular_file() {
    let f = Fixture::with_files(&[("marker", STATE_FORMAT_MARKER)]);
    f.dir(".ash");
    f.symlink("../marker", ".ash/FORMAT");
    assert!(!f.ws.has_state_dir());
}

#[test]
fn error_codes() {
    let io = FsError::Io {
        path: "p".into(),
        kind: std::io::ErrorKind::PermissionDenied,
        message: "denied".into(),
    };
    let ceiling = FsError::Ceiling {
        path: "p".into(),
        ceiling: Ceiling::Entries { limit: 1 },
    };
    let cases = [
        (
            FsError::InvalidRegex {
                message: "m".into(),
            },
            100,
        ),
        (FsError::Escape { path: "p".into() }, 200),
        (FsError::NotFound { path: "p".into() }, 201),
        (FsError::Reserved { path: "p".into() }, 300),
        (FsError::Hidden { path: "p".into() }, 300),
        (FsError::IsDirectory { path: "p".into() }, 500),
        (FsError::NotRegularFile { path: "p".into() }, 500),
        (FsError::NonUtf8Name { path: "p".into() }, 500),
        (io, 500),
        (ceiling, 601),
    ];
    for (err, code) in cases {
        assert_eq!(err.code().as_u16(), code, "{err}");
    }
}
