# payments-sandbox as a service container:
#   docker build -t payments-sandbox .
#   docker run -p 4010:4010 -e SANDBOX_CONTROL_TOKEN="<a secret of yours>" payments-sandbox
# It listens on every interface of the container: without SANDBOX_CONTROL_TOKEN, anyone who reaches the
# published port can reset it and read every merchant's journal (its banner says so). With it, the control
# API asks for Authorization: Bearer <the token>; /__sandbox/health, which the HEALTHCHECK asks, does not.

# Build stage: every dependency, the TypeScript build and the prepared documents.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY openapi ./openapi
COPY scenarios ./scenarios
RUN npm run build

# Run stage: production dependencies only, as the unprivileged node user.
# No control token is baked in: a token written here would be the same for every container of the image.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    SANDBOX_HOST=0.0.0.0 \
    SANDBOX_DATA=/data/payments-sandbox.json
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY openapi ./openapi
COPY scenarios ./scenarios
COPY src/pages/assets ./src/pages/assets
COPY LICENSE README.md ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4010
# No curl in the image: the sandbox's own sub-command asks /__sandbox/health.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 CMD ["node", "bin/payments-sandbox.js", "healthcheck"]
# node is PID 1: the CLI handles SIGTERM itself (a clean stop, the last snapshot written).
ENTRYPOINT ["node", "bin/payments-sandbox.js"]
