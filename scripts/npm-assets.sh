#!/usr/bin/env sh
# npm-assets.sh DEST PACKAGE@VERSION:PATH[=NAME] ...
#
# Fetches pinned files of npm packages into DEST with the npm client, for
# the web pages the binary embeds (go:embed), so that they need no CDN at
# run time. `go generate` runs it; the files are committed. DEST/VERSIONS
# records what was fetched with each tarball's integrity; when it already
# lists exactly the requested files, nothing is fetched, so `go generate`
# needs no network once the assets are in the repository.
set -eu
dest=$1
shift
want=$(printf '%s\n' "$@")
if [ -f "$dest/VERSIONS" ] && [ "$(grep -v '^#' "$dest/VERSIONS" | cut -f1)" = "$want" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "npm-assets: npm is needed to fetch $want" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dest"
versions="# fetched from the npm registry by scripts/npm-assets.sh: spec, file, tarball integrity"
for spec in "$@"; do
  pkg=${spec%%:*}
  path=${spec#*:}
  name=$(basename "${path#*=}")
  path=${path%%=*}
  tgz=$(cd "$tmp" && npm pack --silent "$pkg" 2>/dev/null | tail -n1)
  integrity=$(cd "$tmp" && npm view "$pkg" dist.integrity 2>/dev/null | tail -n1)
  mkdir -p "$tmp/x"
  tar -xzf "$tmp/$tgz" -C "$tmp/x" "package/$path"
  cp "$tmp/x/package/$path" "$dest/$name"
  versions="$versions
$spec	$name	$integrity"
done
printf '%s\n' "$versions" > "$dest/VERSIONS"
