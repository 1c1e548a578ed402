# The nixpkgs library functions the flake uses, with their nixpkgs meaning.
let
  genAttrs = names: f: builtins.listToAttrs (map (name: { inherit name; value = f name; }) names);
in
{
  inherit genAttrs;
  splitString = sep: s: builtins.filter builtins.isString (builtins.split (builtins.replaceStrings [ "." ] [ "\\." ] sep) s);
  concatMap = f: list: builtins.concatLists (map f list);
  cleanSourceWith = { src, filter, name ? "source" }: builtins.path { path = src; inherit filter name; };
  licenses = { mit = { spdxId = "MIT"; }; asl20 = { spdxId = "Apache-2.0"; }; };
}
