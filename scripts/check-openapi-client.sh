#!/usr/bin/env bash
# Proves that openapi.json feeds real tools: builds the default tree, serves it with `generator serve` on 127.0.0.1,
# generates a typed client from the tree's own openapi.json with apple/swift-openapi-generator
# (Tests/OpenAPIClientCheck), fetches and decodes app-config, a product, a category page, an auction property, the
# latest NBA totals and a collection page through it, then runs Schemathesis against the server with the same document.
# Usage: [GENERATOR_BIN=path] scripts/check-openapi-client.sh   (from anywhere; exit 0 only when both checks pass)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v schemathesis >/dev/null; then
  echo "error: schemathesis not found; install it with: python3 -m pip install schemathesis==4.32.5" >&2
  exit 1
fi

base=$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}" )
work=$(mktemp -d "$base/openapi-check.XXXXXX")
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# GENERATOR_BIN: an executable already built (scripts/test passes the one its tests built), else a debug build.
if [ -n "${GENERATOR_BIN:-}" ]; then generator=$GENERATOR_BIN; else
  swift build --product generator >/dev/null
  generator=$(swift build --product generator --show-bin-path)/generator
fi
SOURCE_DATE_EPOCH=1700000000 "$generator" build --out "$work/dist" >/dev/null

# --port 0: the server picks a free port and prints its URL.
"$generator" serve "$work/dist" --port 0 >"$work/serve.log" 2>&1 &
server=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/serve.log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "error: generator serve did not start:" >&2
  cat "$work/serve.log" >&2
  exit 1
fi

# The client is generated from this tree's document, so it can never drift from what the build writes.
cp "$work/dist/openapi.json" Tests/OpenAPIClientCheck/Sources/ClientCheck/openapi.json
swift build --package-path Tests/OpenAPIClientCheck --product ClientCheck >/dev/null
"$(swift build --package-path Tests/OpenAPIClientCheck --show-bin-path)/ClientCheck" "$url" "$work/dist"

# Every operation, with generated and boundary values for its parameters; every response must match the document
# (status code, content type, body schema). The stateful phase is left out: it guesses links from response values and
# sends a nested category id ("tools/drills") as one percent-encoded segment, which the documented pattern excludes.
schemathesis run "$work/dist/openapi.json" --url "$url" --checks all --phases examples,coverage,fuzzing \
  --max-examples 30 --seed 20261124 --no-color
