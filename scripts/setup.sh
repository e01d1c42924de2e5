# Set up a machine to develop and test ptc-runner. Bash only; run it either way:
#   source scripts/setup.sh   # also leaves Node 24 on PATH in this shell (the README's way)
#   bash scripts/setup.sh     # prints the line that puts Node 24 on PATH in a new shell
# It
#   1. installs Node.js 24 from the npm registry (package node-linux-<arch>@24) into the
#      repository's .node24/ when the machine's node is older or missing, and puts it first on PATH;
#   2. installs the Debian packages the tests need when missing: bubblewrap (the bash sandbox),
#      ripgrep (the search tool's engine) and chromium (the web viewer's browser tests), with
#      apt-get when root, otherwise it prints the one command to run;
#   3. runs npm ci.
# It writes nothing outside the repository except through npm and apt-get. Safe to repeat.

# Refuse other shells first, in syntax every sh can parse (dash, zsh, ksh): below is bash.
if [ -z "${BASH_VERSION:-}" ]; then
  echo "setup.sh: needs bash (this shell is not bash). Run: bash scripts/setup.sh, or from bash: source scripts/setup.sh" >&2
  return 2 2>/dev/null || exit 2
fi

_ptc_setup() {
  local root here
  here="${BASH_SOURCE[0]}"
  root="$(cd "$(dirname "$here")/.." && pwd -P)" || return 1
  if ! grep -q '"name": "ptc-runner"' "$root/package.json" 2>/dev/null; then
    echo "setup.sh: $root is not the ptc-runner checkout (no package.json naming ptc-runner); run the script from its scripts/ folder." >&2
    return 1
  fi

  # 1. Node 24.
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "setup.sh: no Node 24 package for $(uname -m); install Node.js 24 yourself." >&2; return 1 ;;
  esac
  local major bootstrapped=''
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$major" -lt 24 ]; then
    local dir="$root/.node24"
    local pkg="$dir/node_modules/node-linux-$arch"
    if [ ! -x "$pkg/bin/node" ]; then
      if ! command -v npm >/dev/null 2>&1; then
        echo "setup.sh: node ${major} is too old and npm is missing to fetch Node 24; install Node.js 24 (https://nodejs.org)." >&2
        return 1
      fi
      echo "setup.sh: installing node-linux-$arch@24 from the npm registry into $dir" >&2
      mkdir -p "$dir" && { [ -f "$dir/package.json" ] || echo '{"private":true}' >"$dir/package.json"; } || return 1
      npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund "node-linux-$arch@24" >&2 || {
        echo "setup.sh: could not install node-linux-$arch@24 from the npm registry" >&2
        return 1
      }
    fi
    bootstrapped="$pkg/bin"
    case ":$PATH:" in *":$bootstrapped:"*) ;; *) export PATH="$bootstrapped:$PATH" ;; esac
    # isolated-vm builds or loads its addon against these headers, the same ABI as this node.
    export npm_config_nodedir="$pkg"
    hash -r
  fi
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if [ "$major" -lt 24 ]; then
    echo "setup.sh: node on PATH is still $(node --version 2>/dev/null || echo missing), not 24." >&2
    return 1
  fi
  echo "setup.sh: node $(node --version) at $(command -v node)" >&2

  # 2. Debian packages.
  local missing=()
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null 2>&1; then
      echo "setup.sh: missing ${missing[*]} and no apt-get here: install them with your package manager (the bash sandbox needs bwrap, search needs rg; the viewer's browser tests need chromium)." >&2
    elif [ "$(id -u)" = 0 ]; then
      echo "setup.sh: installing ${missing[*]} with apt-get" >&2
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } || {
        echo "setup.sh: apt-get could not install ${missing[*]}" >&2
        return 1
      }
    else
      echo "setup.sh: missing ${missing[*]}; as root run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    fi
  fi

  # 3. Dependencies, exactly as the lockfile says.
  (cd "$root" && npm ci --no-audit --no-fund) || return 1

  if [ -n "$bootstrapped" ]; then
    echo "setup.sh: done. In a new shell, put Node 24 on PATH with: export PATH=\"$bootstrapped:\$PATH\" npm_config_nodedir=\"$npm_config_nodedir\"" >&2
  else
    echo "setup.sh: done." >&2
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  # Run as a program: a failure is the exit code.
  _ptc_setup || exit 1
else
  # Sourced: never exit the caller's shell, never leave shell options or helpers behind.
  _ptc_setup || { unset -f _ptc_setup; return 1; }
  unset -f _ptc_setup
fi
