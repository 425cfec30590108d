# selenium-flow: one binary on a slim base. Build: docker build -t selenium-flow .
# test/integration/deploy.test.ts replays the build stage outside Docker (a folder holding only
# what it COPYs, then its RUN lines) and boots the binary it makes: keep the two in step.
FROM oven/bun:1.4 AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The binary bundles the runtime packages only; the image's own Bun compiles it.
RUN bun install --frozen-lockfile --ignore-scripts --production
COPY tsconfig.json bunfig.toml ./
COPY scripts ./scripts
COPY src ./src
# The admin pages' CSS and script, and the agents' guide: all embedded in the binary.
COPY static ./static
COPY docs ./docs
RUN bun scripts/build.ts

FROM debian:12-slim
RUN useradd --system --uid 10001 --home-dir /data flow \
 && mkdir -p /data && chown flow /data
COPY --from=build /src/dist/selenium-flow /usr/local/bin/selenium-flow
USER flow
ENV DATA_DIR=/data \
    HTTP_HOST=0.0.0.0 \
    PORT=8766
VOLUME ["/data"]
EXPOSE 8766
# Healthy once it serves HTTP (bash, no curl in the slim base). /healthz itself answers 503 while
# the Grid or Redis does not: a readiness signal, which Kubernetes' probe reads; this check only
# says the process serves, so an outage of either does not mark every server unhealthy.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-8766} && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -c 5 <&3 | grep -q '^HTTP/'"]
ENTRYPOINT ["/usr/local/bin/selenium-flow"]
