#!/usr/bin/env bash
# npm run test:docker: build the image, start a container, check health and one route per area.
# Needs a Docker engine; here: bash ../shared/tools/start-dockerd.sh && bash ../shared/tools/node-base-image.sh 22
set -euo pipefail
cd "$(dirname "$0")/../.."
image="${MOCKYARD_IMAGE:-mockyard:test}"
port="${MOCKYARD_TEST_PORT:-$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
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
health="$(docker inspect --format '{{.State.Health.Status}}' "$name" 2>/dev/null || echo none)"
echo "     HEALTHCHECK status: $health"
[ "$fail" = 0 ] && echo "test:docker: passed" || { docker logs "$name" | tail -n 20; echo "test:docker: failed"; exit 1; }
