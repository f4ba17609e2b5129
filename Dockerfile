# memoryd: one self-contained executable on a slim Debian base.
#
#   docker build -t memoryd .
#   docker run -d --name memoryd -p 8787:8787 -v memoryd-data:/data --stop-timeout 20 memoryd
#   docker logs memoryd        # the first start prints an API key once
#
# With DATABASE_URL set the /data volume is unused and any number of containers may run.

# ---- build: install from the lockfile, compile dist/memoryd -------------------------------
FROM oven/bun:1.3.14 AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY . .
# Writes dist/memoryd (PGlite's wasm, its file-system bundle, the migrations and a
# pre-initialised data-dir template are all embedded in it).
RUN bun run build

# ---- runtime: only the binary ------------------------------------------------------------
FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 memoryd \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home \
            --shell /usr/sbin/nologin memoryd \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=build /src/dist/memoryd /usr/local/bin/memoryd

# The embedded database lives in /data; it is single-process: never mount one data volume into
# two running containers (use DATABASE_URL for several instances).
VOLUME /data
WORKDIR /data
ENV HOST=0.0.0.0 \
    PORT=8787 \
    MEMORYD_DATA_DIR=/data
EXPOSE 8787
USER 10001:10001

# Liveness probe with nothing installed: bash's /dev/tcp speaks just enough HTTP to GET
# /healthz and check the status line.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-8787} || exit 1; printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3; IFS= read -r -t 4 status <&3; [[ $status == *' 200 '* ]]"]

# SIGTERM (docker stop): running answers get 10 s to finish (then go back to the queue), open
# connections 2 s more; then the database is closed and the process exits 0 (--stop-timeout 20 above).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/memoryd"]
CMD ["serve"]
