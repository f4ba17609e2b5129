#!/usr/bin/env bash
# CI for the Python client (called by .ci/run, after dist/memoryd is built): installs Debian's Python
# packages when missing, builds the wheel, installs it into a fresh virtual environment (httpx from
# Debian through --system-site-packages), type-checks an example against the installed package, and
# runs the examples with it against dist/memoryd on a fresh embedded data directory. When the test
# log given as $1 shows that `bun run test` skipped the pytest suite (the packages were missing
# then), the suite runs here. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
PACKAGE=$(pwd)
REPO=$(cd ../.. && pwd)
PYTHON=/usr/bin/python3
TEST_LOG=${1:-}

packages="python3-httpx python3-pytest python3-mypy python3-hatchling python3-venv python3-build"
missing=""
for package in $packages; do
  dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  # shellcheck disable=SC2086
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing) >/dev/null 2>&1 || {
    echo "could not install:$missing"
    exit 1
  }
fi
# `--packages`: only the packages (.ci/run installs them before `bun run test`, which runs the pytest suite).
if [ "$TEST_LOG" = "--packages" ]; then exit 0; fi

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export PYTHONDONTWRITEBYTECODE=1

echo "-- wheel"
if "$PYTHON" -c "import build" 2>/dev/null; then
  "$PYTHON" -m build --wheel --no-isolation --skip-dependency-check --outdir "$work/dist" . >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
else
  "$PYTHON" -m hatchling build -t wheel -d "$work/dist" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
fi
wheel=$(ls "$work"/dist/memoryd-*.whl)
echo "$(basename "$wheel")"
"$PYTHON" -m zipfile -l "$wheel" | grep -q "memoryd/py.typed" || { echo "the wheel has no py.typed"; exit 1; }

echo "-- fresh virtual environment"
"$PYTHON" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-deps --no-index "$wheel"
cd "$work" # away from the source tree: only the installed package can be imported
"$work/venv/bin/python" -c "import memoryd, memoryd.types; print('memoryd', memoryd.__version__, 'from', memoryd.__file__)"
case "$("$work/venv/bin/python" -c 'import memoryd; print(memoryd.__file__)')" in
  "$work"/venv/*) ;;
  *) echo "memoryd was not imported from the virtual environment"; exit 1 ;;
esac
"$work/venv/bin/python" -m mypy --strict --no-error-summary --cache-dir "$work/mypy-cache" "$PACKAGE/examples/chat_loop.py" "$PACKAGE/examples/answers.py"

echo "-- examples against dist/memoryd"
binary="$REPO/dist/memoryd"
[ -x "$binary" ] || { echo "$binary is missing: bun run build"; exit 1; }
env -u DATABASE_URL -u PORT -u HOST "$binary" serve --port 0 --host 127.0.0.1 --data-dir "$work/data" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
  grep -q "memoryd listening on" "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
MEMORYD_URL=$(grep -Eo 'memoryd listening on http://[^ ]+' "$work/server.log" | awk '{print $4}') || true
MEMORYD_KEY=$(grep -Eo 'ak_(test|live)_[0-9A-Za-z]+' "$work/server.log" | head -1) || true
if [ -z "$MEMORYD_URL" ] || [ -z "$MEMORYD_KEY" ]; then
  echo "memoryd did not start:"
  cat "$work/server.log"
  exit 1
fi
export MEMORYD_URL MEMORYD_KEY
unset OPENAI_API_KEY
run_example() {
  local name="$1" expect="$2" out
  out=$("$work/venv/bin/python" "$PACKAGE/examples/$name" 2>&1) || { echo "$name failed:"; echo "$out"; return 1; }
  grep -q -- "$expect" <<<"$out" || { echo "$name did not print \"$expect\":"; echo "$out"; return 1; }
  echo "ok $name"
}
run_example quickstart.py "The billing service runs on Postgres 16."
run_example chat_loop.py "assistant: From what you told me before: I moved to Lisbon"
run_example answers.py "completed From memory"
run_example mcp_jsonrpc.py "found: \[\"The on-call rota changes every Monday.\"\]"

if [ -n "$TEST_LOG" ] && grep -q "SKIPPED test/e2e/python-client.test.ts" "$TEST_LOG" 2>/dev/null; then
  echo "-- pytest suite (bun run test skipped it: the packages were installed only now)"
  cd "$REPO"
  bun test --timeout 600000 test/e2e/python-client.test.ts
fi
echo "Python client: ok"
