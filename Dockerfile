# Build stage: compile TypeScript, build the native SQLite addon and the fixture database.
FROM node:22-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY fixtures ./fixtures
# npm ci runs "prepare", which compiles src/ and fixtures/ into dist/.
RUN npm ci --no-audit --no-fund \
 && node dist/bundle/cli.js fixtures \
 && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: no compilers, non-root, listening on all interfaces.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    MOCKYARD_HOST=0.0.0.0 \
    MOCKYARD_PORT=4010
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/fixtures ./fixtures
# The data folder stays writable so another --seed or --scale can rebuild at start.
COPY --from=build --chown=node:node /app/data ./data
USER node
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.MOCKYARD_PORT||4010)+'/__mockyard/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "dist/bundle/cli.js"]
