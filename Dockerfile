# syntax=docker/dockerfile:1
# bullbeat: one image for every role. The command picks it:
#   docker run IMAGE scheduler dist/examples/jobs.js
#   docker run IMAGE worker dist/examples/jobs.js --concurrency 10
#   docker run IMAGE dashboard --port 3000
# Node 24, an LTS release (Node 20 reached its end of life in April 2026).
# This image is this repository's (its examples); for your own application's image, see
# deploy/app/Dockerfile and docs/deployment.md.

# ---- build: every dependency, compile TypeScript to dist/ ----
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY workers ./workers
COPY dashboard ./dashboard
COPY nest ./nest
COPY examples ./examples
RUN npm run build

# ---- runtime: production dependencies and the built dist/ only, as the unprivileged `node` user ----
FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    LOG_FORMAT=json
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional keeps TypeScript (23 MB) out: @bull-board/api's valibot lists it as an optional peer,
# which npm installs with --omit=dev alone. The only other optional package is msgpackr-extract, the
# native decoder of msgpackr; BullMQ only encodes with msgpackr, so nothing that runs here needs it.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# The CLI shuts down cleanly on SIGTERM (docker stop): schedulers stop claiming, workers let running
# jobs finish for up to --grace-ms (default 30 s), then abort them. Give docker stop more than that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["--help"]
