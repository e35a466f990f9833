# The service's image: built from the locked dependencies, run as an unprivileged user.
# docs/deploy.md shows it with compose.yaml; test/e2e/docs/container-recipe.test.ts checks it.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts skipped until the sources are in (prepare compiles them); better-sqlite3 still gets its binary.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 CREATIVES_DIR=/app/data/creatives
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /app/data/creatives && chown -R node:node /app/data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/surfaces/cli/svc-server.js", "serve"]
