//! Every `#[test]` function of the workspace, found by parsing the sources the way the
//! compiler reaches them: from each target's root file through its `mod` items (`#[path]`
//! included), so each test gets the name libtest gives it and the cargo target that runs it.
//! Tests that a macro generates are not seen; none of ours are.

use std::path::{Path, PathBuf};
use std::process::Command;

use syn::visit::Visit;

use crate::XtaskError;

/// The cargo target a test is compiled into.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// The package's library (`--lib`).
    Lib,
    /// A binary (`--bin NAME`).
    Bin(String),
    /// An integration test (`--test NAME`).
    Test(String),
}

impl Target {
    /// The `cargo test` arguments that select this target.
    pub fn cargo_args(&self) -> Vec<String> {
        match self {
            Target::Lib => vec!["--lib".into()],
            Target::Bin(name) => vec!["--bin".into(), name.clone()],
            Target::Test(name) => vec!["--test".into(), name.clone()],
        }
    }
}

/// How a test is ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignore {
    /// It runs by default.
    No,
    /// `#[ignore]` without a reason.
    Bare,
    /// `#[ignore = "…"]`.
    Reason(String),
}

/// One test function.
#[derive(Debug, Clone)]
pub struct Test {
    /// The cargo package.
    pub package: String,
    /// The target within the package.
    pub target: Target,
    /// libtest's name for it: the module path inside the target, then the function.
    pub name: String,
    /// The function's own name.
    pub function: String,
    /// The source file, relative to the repository root.
    pub file: PathBuf,
    /// Whether and why it is ignored.
    pub ignore: Ignore,
    /// `#[should_panic]`: the panic is the check.
    pub should_panic: bool,
    /// What its body does that can make it fail.
    pub body: BodyChecks,
}

/// The checks found in one function body, and the functions it calls (which may check for
/// it).
#[derive(Debug, Clone, Default)]
pub struct BodyChecks {
    /// An `assert*!`, `panic!`, `unreachable!`, `.unwrap()`, `.expect(…)` or similar.
    pub direct: bool,
    /// A `?`: the function returns an error the harness reports.
    pub try_operator: bool,
    /// Names of functions and methods called (last path segment).
    pub calls: Vec<String>,
    /// An `eprintln!`/`println!` whose text says something was skipped or is not installed.
    pub prints_skip: bool,
    /// A bare `return;` outside closures: the function can end before its checks.
    pub early_return: bool,
    /// Closures being visited (a `return` in one ends only the closure).
    pub(crate) closures: usize,
}

/// A function or method that is not a test: something tests may call.
#[derive(Debug, Clone)]
pub struct Helper {
    /// [`target_key`] of the target it is compiled into.
    pub target: String,
    /// Its name.
    pub name: String,
    /// Its file, relative to the repository root.
    pub file: PathBuf,
    /// What its body does.
    pub checks: BodyChecks,
}

/// Every non-test function of every target.
#[derive(Debug, Default)]
pub struct Helpers {
    /// In source order.
    pub functions: Vec<Helper>,
}

/// One string per (package, target), to group helpers with the tests of their target.
pub fn target_key(package: &str, target: &Target) -> String {
    format!("{package} {target:?}")
}

/// The workspace's tests and helper functions.
#[derive(Debug, Default)]
pub struct Inventory {
    /// Every test function.
    pub tests: Vec<Test>,
    /// Every non-test function, for following calls from tests.
    pub helpers: Helpers,
}

/// The repository root (the workspace's).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// A package's targets as `cargo metadata` lists them.
struct PackageTargets {
    name: String,
    targets: Vec<(Target, PathBuf)>,
}

fn metadata(root: &Path) -> Result<Vec<PackageTargets>, XtaskError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(&cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .map_err(|source| XtaskError::Spawn {
            command: "cargo metadata".into(),
            source,
        })?;
    if !out.status.success() {
        return Err(XtaskError::Metadata(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| XtaskError::Metadata(format!("cargo metadata's output: {e}")))?;
    let mut packages = Vec::new();
    for package in doc["packages"].as_array().into_iter().flatten() {
        let name = package["name"].as_str().unwrap_or_default().to_owned();
        let mut targets = Vec::new();
        for target in package["targets"].as_array().into_iter().flatten() {
            let tname = target["name"].as_str().unwrap_or_default().to_owned();
            let src = PathBuf::from(target["src_path"].as_str().unwrap_or_default());
            let kinds: Vec<&str> = target["kind"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str())
                .collect();
            let kind = if kinds.iter().any(|k| k.ends_with("lib")) {
                Some(Target::Lib)
            } else if kinds.contains(&"bin") {
                Some(Target::Bin(tname))
            } else if kinds.contains(&"test") {
                Some(Target::Test(tname))
            } else {
                // Benches, examples and build scripts hold no tests `cargo test` runs.
                None
            };
            if let Some(kind) = kind {
                targets.push((kind, src));
            }
        }
        packages.push(PackageTargets { name, targets });
    }
    Ok(packages)
}

/// Parses the workspace's tests.
pub fn collect(root: &Path) -> Result<Inventory, XtaskError> {
    let mut inventory = Inventory::default();
    for package in metadata(root)? {
        for (target, src) in &package.targets {
            let key = target_key(&package.name, target);
            let mut walker = Walker {
                root,
                package: &package.name,
                target,
                key: &key,
                inventory: &mut inventory,
            };
            walker.file(src, &[], true)?;
        }
    }
    inventory
        .tests
        .sort_by(|a, b| (&a.package, &a.target, &a.name).cmp(&(&b.package, &b.target, &b.name)));
    Ok(inventory)
}

struct Walker<'a> {
    root: &'a Path,
    package: &'a str,
    target: &'a Target,
    key: &'a str,
    inventory: &'a mut Inventory,
}

impl Walker<'_> {
    /// Reads one module file; `mod_rs` says whether its child modules live beside it (crate
    /// roots, `mod.rs`, files named by `#[path]`) or in a directory named for it.
    fn file(&mut self, path: &Path, modules: &[String], mod_rs: bool) -> Result<(), XtaskError> {
        let text = std::fs::read_to_string(path).map_err(|source| XtaskError::Io {
            what: path.display().to_string(),
            source,
        })?;
        let parsed = syn::parse_file(&text).map_err(|e| XtaskError::Parse {
            file: path.display().to_string(),
            message: e.to_string(),
        })?;
        let dir = match (mod_rs, path.parent()) {
            (true, Some(parent)) => parent.to_path_buf(),
            (false, Some(parent)) => {
                parent.join(path.file_stem().map(PathBuf::from).unwrap_or_default())
            }
            (_, None) => PathBuf::new(),
        };
        self.items(&parsed.items, path, &dir, modules)
    }

    fn items(
        &mut self,
        items: &[syn::Item],
        file: &Path,
        dir: &Path,
        modules: &[String],
    ) -> Result<(), XtaskError> {
        for item in items {
            match item {
                syn::Item::Fn(f) => self.function(f, file, modules),
                syn::Item::Impl(block) => {
                    for item in &block.items {
                        if let syn::ImplItem::Fn(m) = item {
                            self.helper(&m.sig.ident.to_string(), &m.block, file);
                        }
                    }
                }
                syn::Item::Trait(t) => {
                    for item in &t.items {
                        if let syn::TraitItem::Fn(m) = item
                            && let Some(block) = &m.default
                        {
                            self.helper(&m.sig.ident.to_string(), block, file);
                        }
                    }
                }
                syn::Item::Mod(m) => {
                    let mut inner = modules.to_vec();
                    inner.push(m.ident.to_string());
                    let path_attr = string_attr(&m.attrs, "path");
                    match (&m.content, path_attr) {
                        (Some((_, items)), _) => {
                            self.items(items, file, &dir.join(m.ident.to_string()), &inner)?;
                        }
                        (None, Some(path)) => {
                            let base = file.parent().unwrap_or(Path::new(""));
                            self.file(&base.join(path), &inner, true)?;
                        }
                        (None, None) => {
                            let name = m.ident.to_string();
                            let flat = dir.join(format!("{name}.rs"));
                            if flat.is_file() {
                                self.file(&flat, &inner, false)?;
                            } else {
                                self.file(&dir.join(&name).join("mod.rs"), &inner, true)?;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn helper(&mut self, name: &str, block: &syn::Block, file: &Path) {
        let mut checks = BodyChecks::default();
        checks.visit_block(block);
        let file = file.strip_prefix(self.root).unwrap_or(file).to_path_buf();
        self.inventory.helpers.functions.push(Helper {
            target: self.key.to_owned(),
            name: name.to_owned(),
            file,
            checks,
        });
    }

    fn function(&mut self, f: &syn::ItemFn, file: &Path, modules: &[String]) {
        let is_test = f.attrs.iter().any(|a| {
            a.path()
                .segments
                .last()
                .is_some_and(|s| s.ident == "test" || s.ident == "rstest")
        });
        let function = f.sig.ident.to_string();
        if !is_test {
            self.helper(&function, &f.block, file);
            return;
        }
        let ignore = f
            .attrs
            .iter()
            .find(|a| a.path().is_ident("ignore"))
            .map_or(Ignore::No, |a| match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => Ignore::Reason(s.value()),
                    _ => Ignore::Bare,
                },
                _ => Ignore::Bare,
            });
        let should_panic = f.attrs.iter().any(|a| a.path().is_ident("should_panic"));
        let mut body = BodyChecks::default();
        body.visit_block(&f.block);
        let mut name = modules.join("::");
        if !name.is_empty() {
            name.push_str("::");
        }
        name.push_str(&function);
        let file = file.strip_prefix(self.root).unwrap_or(file).to_path_buf();
        self.inventory.tests.push(Test {
            package: self.package.to_owned(),
            target: self.target.clone(),
            name,
            function,
            file,
            ignore,
            should_panic,
            body,
        });
    }
}

/// The string value of `#[name = "…"]`.
fn string_attr(attrs: &[syn::Attribute], name: &str) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident(name))
        .and_then(|a| {
            if let syn::Meta::NameValue(nv) = &a.meta
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
            {
                return Some(s.value());
            }
            None
        })
}

/// Macros whose use is a check: they fail the test when their condition does not hold.
fn is_check_macro(name: &str) -> bool {
    name.starts_with("assert")
        || name.starts_with("prop_assert")
        || matches!(name, "panic" | "unreachable" | "bail" | "ensure")
}

/// Methods that panic on the value they are called on when it is not the expected one.
fn is_check_method(name: &str) -> bool {
    matches!(
        name,
        "unwrap" | "expect" | "unwrap_err" | "expect_err" | "unwrap_none" | "expect_none"
    )
}

impl<'ast> Visit<'ast> for BodyChecks {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(last) = mac.path.segments.last() {
            let name = last.ident.to_string();
            if is_check_macro(&name) {
                self.direct = true;
            }
            if matches!(name.as_str(), "eprintln" | "println" | "eprint" | "print") {
                let text = mac.tokens.to_string().to_lowercase();
                if text.contains("skip") || text.contains("not installed") {
                    self.prints_skip = true;
                }
            }
        }
        syn::visit::visit_macro(self, mac);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        if is_check_method(&name) {
            self.direct = true;
        }
        self.calls.push(name);
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func
            && let Some(last) = p.path.segments.last()
        {
            self.calls.push(last.ident.to_string());
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
        self.try_operator = true;
        syn::visit::visit_expr_try(self, e);
    }

    fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
        if e.expr.is_none() && self.closures == 0 {
            self.early_return = true;
        }
        syn::visit::visit_expr_return(self, e);
    }

    // A closure defined in a test is still the test's code, but its `return` ends only it.
    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        self.closures += 1;
        syn::visit::visit_expr_closure(self, e);
        self.closures -= 1;
    }

    // A nested `fn` returns from itself, like a closure.
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.closures += 1;
        syn::visit::visit_item_fn(self, f);
        self.closures -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks(code: &str) -> BodyChecks {
        let block: syn::Block = syn::parse_str(code).unwrap_or_else(|e| panic!("{code}: {e}"));
        let mut checks = BodyChecks::default();
        checks.visit_block(&block);
        checks
    }

    #[test]
    fn asserts_unwraps_and_panics_are_checks_and_prints_are_not() {
        assert!(checks("{ assert_eq!(1, 1); }").direct);
        assert!(checks("{ pretty_assertions::assert_ne!(1, 2); }").direct);
        assert!(checks("{ let x = f().unwrap(); }").direct);
        assert!(checks("{ g().expect(\"g\"); }").direct);
        assert!(checks("{ if x { panic!(\"no\") } }").direct);
        assert!(checks("{ insta::assert_snapshot!(s); }").direct);
        let none = checks("{ let x = f(); println!(\"{x}\"); }");
        assert!(!none.direct && !none.try_operator);
        assert_eq!(none.calls, ["f"]);
        assert!(checks("{ f()?; }").try_operator);
    }

    #[test]
    fn a_print_that_says_skipped_is_seen() {
        assert!(checks("{ eprintln!(\"skipped: no browser\"); return; }").prints_skip);
        assert!(checks("{ eprintln!(\"{shell} not installed: not checked\"); }").prints_skip);
        assert!(!checks("{ eprintln!(\"lines were read\"); }").prints_skip);
    }

    #[test]
    fn a_bare_return_is_early_unless_it_ends_a_closure_or_a_nested_fn() {
        assert!(checks("{ if !root() { return; } assert!(x); }").early_return);
        assert!(!checks("{ let f = || { return; }; f(); }").early_return);
        assert!(!checks("{ fn g() { return; } g(); }").early_return);
        assert!(!checks("{ let v = f(); assert!(v); }").early_return);
    }

    #[test]
    fn the_workspace_inventory_names_tests_as_libtest_does() {
        let inventory = collect(&repo_root()).unwrap_or_else(|e| panic!("{e}"));
        // A test of this very file, in the xtask binary.
        let me = inventory
            .tests
            .iter()
            .find(|t| t.function == "the_workspace_inventory_names_tests_as_libtest_does")
            .unwrap_or_else(|| panic!("this test is not in the inventory"));
        assert_eq!(me.package, "xtask");
        assert_eq!(me.target, Target::Bin("xtask".into()));
        assert_eq!(
            me.name,
            "inventory::tests::the_workspace_inventory_names_tests_as_libtest_does"
        );
        // A test reached through `#[path]` from an integration test's `main.rs`.
        let e2e = inventory
            .tests
            .iter()
            .find(|t| t.function == "every_readme_command_runs")
            .unwrap_or_else(|| panic!("install.rs's test is not in the inventory"));
        assert_eq!(
            (e2e.package.as_str(), &e2e.target, e2e.name.as_str()),
            (
                "ansa",
                &Target::Test("e2e".into()),
                "install::every_readme_command_runs"
            )
        );
        assert_eq!(e2e.file, Path::new("tests/e2e/install.rs"));
        assert!(inventory.tests.len() > 1000, "{}", inventory.tests.len());
    }
}
