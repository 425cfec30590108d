# selenium-flow: one binary on a slim base. Build: docker build -t selenium-flow .
FROM oven/bun:1.4 AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN bun install --frozen-lockfile --ignore-scripts
COPY tsconfig.json bunfig.toml ./
COPY scripts ./scripts
COPY src ./src
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
ENTRYPOINT ["/usr/local/bin/selenium-flow"]
