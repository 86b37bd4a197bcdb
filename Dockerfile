# Build stage: compile TypeScript, the SQLite addon and the fixture database.
# Node 24 is an LTS line in the supported range (package.json engines: Node 22.13+ and 24).
ARG NODE_MAJOR=24
FROM node:${NODE_MAJOR}-bookworm-slim AS build
# `npm ci` builds better-sqlite3 from source (npm runs node-gyp for a binding.gyp when installing from
# a lockfile, although the package also ships Node-API binaries); a plain `npm install` uses those.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY fixtures ./fixtures
# npm ci runs "prepare", which compiles src/ and fixtures/ into dist/.
RUN npm ci --no-audit --no-fund \
 && node dist/bundle/cli.js fixtures \
 && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: no compilers, non-root, listening on all interfaces.
# MALLOC_ARENA_MAX=2: glibc's malloc keeps at most two arenas instead of one per thread that allocates
# (libuv's pool, V8's helpers); the server's resident memory after `npm run bench`'s mixed load went from
# 103-106 MB to 99-101 MB, at the same throughput; MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ at 1 MiB
# make it give freed memory back instead of keeping up to 64 MiB of it (src/cli.ts, docs/performance.md).
FROM node:${NODE_MAJOR}-bookworm-slim
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=1048576 \
    MALLOC_TRIM_THRESHOLD_=1048576 \
    MOCKYARD_HOST=0.0.0.0 \
    MOCKYARD_PORT=4010
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/bundle ./dist/bundle
COPY --from=build /app/fixtures ./fixtures
COPY scripts/healthcheck.cjs ./scripts/healthcheck.cjs
# The data folder stays writable so another --seed or --scale can rebuild at start.
COPY --from=build --chown=node:node /app/data ./data
USER node
EXPOSE 4010
# node:http, not fetch(): fetch refuses ports on the Fetch standard's blocked list (5060, 6000, ...).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "scripts/healthcheck.cjs"]
# Node's flags as `npm start` and the command's #! line give them (src/cli.ts says why).
ENTRYPOINT ["node", "--no-allocation-site-pretenuring", "--no-memory-reducer", "--single-threaded-gc", "dist/bundle/cli.js"]
