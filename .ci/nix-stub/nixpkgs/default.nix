# `import nixpkgs { system; overlays; }`: a package set with the attributes the flake uses.
{ system, overlays ? [ ] }:
let
  lib = import ./lib.nix;
  stub = name: builtins.derivation {
    inherit name system;
    builder = "/bin/sh";
    args = [ "-c" "echo stub > $out" ];
  };
  require = what: cond: if cond then true else throw "stub nixpkgs: ${what}";
  base = final: {
    inherit lib;
    stdenv.hostPlatform.system = system;
    git = stub "git";
    tmux = stub "tmux";
    zsh = stub "zsh";
    mkShell = { packages ? [ ], ... }:
      assert require "mkShell packages must be derivations" (builtins.all (p: p ? drvPath) packages);
      stub "shell";
    makeRustPlatform = { cargo, rustc }:
      assert require "makeRustPlatform needs the toolchain" (cargo ? drvPath && rustc ? drvPath);
      {
        buildRustPackage = args:
          assert require "buildRustPackage needs pname and version" (args ? pname && args ? version);
          assert require "cargoLock.lockFile must exist" (builtins.pathExists args.cargoLock.lockFile);
          assert require "src must hold Cargo.toml" (builtins.pathExists "${args.src}/Cargo.toml");
          stub "${args.pname}-${args.version}";
      };
  };
  apply = pkgs: overlay: pkgs // overlay final pkgs;
  final = builtins.foldl' apply (base final) overlays;
in
final
