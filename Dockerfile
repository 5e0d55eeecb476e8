# Parley in a container: non-root, data in the /data volume, health checked. See docs/deployment.md.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
# `npm ci` builds dist/cli.js (the prepare script); then the development packages go.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PARLEY_HOST=0.0.0.0 \
    PARLEY_PORT=9991 \
    PARLEY_DATA_DIR=/data \
    MALLOC_ARENA_MAX=1 \
    MALLOC_MMAP_THRESHOLD_=32768
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 9991
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:9991/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# docker stop sends SIGTERM to node (PID 1, which handles it): polls answered, queues saved.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=4", "dist/cli.js", "serve"]
