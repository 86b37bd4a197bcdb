#!/usr/bin/env bash
# CI: check what `npm publish` would ship, from the packed tarball itself (run after `npm run build`).
#  1. `npm publish --dry-run` succeeds;
#  2. the tarball holds what runs and nothing else (no source maps, no dist/bench, no tests);
#  3. a strict TypeScript consumer project (no skipLibCheck) compiles against its .d.ts files;
#  4. the packed CLI starts on its own files, builds fixtures into a fresh data folder and answers.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
step() { echo "check-package: $*"; }

step "npm publish --dry-run"
npm publish --dry-run --ignore-scripts >"$work/publish.log" 2>&1 || { cat "$work/publish.log"; exit 1; }

step "npm pack"
npm pack --ignore-scripts --json --pack-destination "$work" >"$work/pack.json" 2>/dev/null
node -e '
  const [pack] = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const files = pack.files.map((f) => f.path);
  const bad = files.filter((f) => /\.map$/.test(f) || /^dist\/(bench|test)\//.test(f) || /^(test|bench|src|scripts|data)\//.test(f) || (/^dist\/src\//.test(f) && !f.endsWith(".d.ts")));
  const needed = ["package.json", "README.md", "dist/bundle/cli.js", "dist/bundle/index.js", "dist/src/index.d.ts", "fixtures/build.ts"];
  const missing = needed.filter((f) => !files.includes(f));
  if (bad.length || missing.length) {
    console.error(`unexpected files: ${bad.join(", ") || "none"}; missing: ${missing.join(", ") || "none"}`);
    process.exit(1);
  }
  console.log(`check-package: ${pack.filename}: ${files.length} files, ${(pack.size / 1024).toFixed(0)} KiB packed, ${(pack.unpackedSize / 1048576).toFixed(1)} MiB unpacked`);
' "$work/pack.json"
tarball="$work/$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[0].filename' "$work/pack.json")"

step "strict TypeScript consumer (no skipLibCheck) against the packed .d.ts"
mkdir -p "$work/consumer"
cp test/package/consumer/index.ts test/package/consumer/tsconfig.json "$work/consumer/"
echo '{ "name": "consumer", "private": true, "type": "module" }' >"$work/consumer/package.json"
ts_version="$(node -p 'require("./node_modules/typescript/package.json").version')"
types_node="$(node -p 'process.versions.node.split(".")[0]')"
# npm can wait forever on a registry fetch that stalls: one such install sat idle for 29 minutes here, past
# npm's own fetch timeout and retries. An install gets five minutes, and a second try if it stalls or fails.
consumer_install() {
  local attempt
  for attempt in 1 2; do
    timeout 300 npm install --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error \
      "$tarball" "typescript@$ts_version" "@types/node@$types_node" >/dev/null && return 0
    echo "check-package: npm install of the consumer failed or stalled (attempt $attempt of 2)"
  done
  return 1
}
(cd "$work/consumer" && consumer_install && node node_modules/typescript/bin/tsc -p .)

step "packed CLI starts from its own files"
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
# The package's dependencies as installed here (better-sqlite3 built for this Node).
ln -s "$root/node_modules" "$work/unpacked/package/node_modules"
node "$work/unpacked/package/dist/bundle/cli.js" --version
node "$work/unpacked/package/dist/bundle/cli.js" --port 0 --log-level warn --data-dir "$work/data" >"$work/cli.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 120); do
  url="$(sed -n 's/^mockyard .* ready at \(http[^ ]*\).*/\1/p' "$work/cli.log" | head -n 1)"
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.5
done
[ -n "$url" ] || { cat "$work/cli.log"; echo "check-package: the packed CLI did not start"; exit 1; }
curl -fsS "$url/__mockyard/health" >/dev/null 2>&1 || node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$url/__mockyard/health"
kill "$server_pid"
wait "$server_pid" || true
server_pid=""
step "ok"
