#!/usr/bin/env bash
# npm run test:docker: build the image, start a container, check health and one route per area.
# Needs a Docker engine and a local node:24-bookworm-slim image (the Dockerfile's NODE_MAJOR).
set -euo pipefail
cd "$(dirname "$0")/../.."
image="${MOCKYARD_IMAGE:-mockyard:test}"
# 5060 by default: a port fetch() refuses, so the HEALTHCHECK must not depend on fetch.
port="${MOCKYARD_TEST_PORT:-5060}"
name="mockyard-test-$$"
# The engine installed from Debian ships its own client with BuildKit built in; a newer client
# elsewhere on PATH may lack the buildx plugin.
docker() { if [ -x /usr/bin/docker ]; then /usr/bin/docker "$@"; else command docker "$@"; fi; }

echo "test:docker: building $image"
DOCKER_BUILDKIT=1 docker build --network host -t "$image" . >/tmp/mockyard-docker-build.log 2>&1 \
  || { tail -n 40 /tmp/mockyard-docker-build.log; exit 1; }
# No bridge network on these machines: the container shares the host network, on a free port.
docker run -d --rm --name "$name" --network host -e MOCKYARD_PORT="$port" "$image" >/dev/null
trap 'docker rm -f "$name" >/dev/null 2>&1 || true' EXIT

base="http://127.0.0.1:$port"
for _ in $(seq 1 60); do
  curl -fsS "$base/__mockyard/health" >/dev/null 2>&1 && break
  sleep 0.5
done

fail=0
check() { # expected-status path [curl args...]
  local want="$1" path="$2"; shift 2
  local got
  got="$(curl -s -o /dev/null -w '%{http_code}' "$@" "$base$path")"
  if [ "$got" = "$want" ]; then echo "ok   $want $path"; else echo "FAIL $path: got $got, want $want"; fail=1; fi
}
check 200 /__mockyard/health
check 200 /openapi.json
check 200 /__mockyard/fixtures
while read -r want path header; do
  if [ -n "${header:-}" ]; then check "$want" "$path" -H "$header"; else check "$want" "$path"; fi
done < <(grep -v '^#' test/docker/routes.txt)

user="$(docker exec "$name" id -u)"
if [ "$user" = 0 ]; then echo "FAIL container runs as root"; fail=1; else echo "ok   runs as uid $user"; fi
health=none
for _ in $(seq 1 30); do
  health="$(docker inspect --format '{{.State.Health.Status}}' "$name" 2>/dev/null || echo none)"
  [ "$health" = healthy ] && break
  sleep 1
done
if [ "$health" = healthy ]; then echo "ok   HEALTHCHECK healthy on port $port"; else echo "FAIL HEALTHCHECK status on port $port: $health"; fail=1; fi
node_major="$(docker exec "$name" node -p 'process.versions.node.split(".")[0]')"
echo "     Node $node_major in the image"
[ "$fail" = 0 ] && echo "test:docker: passed" || { docker logs "$name" | tail -n 20; echo "test:docker: failed"; exit 1; }
