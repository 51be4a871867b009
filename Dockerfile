# The service's image (docs/OPERATIONS.md, Containers). BASE is any Node 24 image on glibc with npm:
# node:24-slim by default; CI builds from a base it makes locally (scripts/check-image.sh).
ARG BASE=node:24-slim

# Build: the lock's dependencies, then the workspace packages, the owner pages and dist/, then only the
# production dependencies are kept.
FROM ${BASE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/webhooks/package.json packages/webhooks/
COPY packages/client/package.json packages/client/
# Without scripts: `prepare` compiles the packages, whose sources are not copied yet (the build does it).
# Behind a TLS-inspecting proxy, pass its CA as the optional secret `ca` (`--secret id=ca,src=<file>`):
# it is mounted for this step only and never stored in the image.
RUN --mount=type=secret,id=ca,required=false \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# Runtime: what runs and nothing else, as a user without privileges.
FROM ${BASE}
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data
RUN groupadd --system --gid 10001 vaultkeeper \
 && useradd --system --uid 10001 --gid vaultkeeper --home-dir /app --no-create-home \
      --shell /usr/sbin/nologin vaultkeeper \
 && install -d -o vaultkeeper -g vaultkeeper -m 0700 /data
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
# node_modules/@vaultkeeper/* link to the workspace packages: their manifests and compiled code.
COPY --from=build /src/packages/webhooks/package.json packages/webhooks/
COPY --from=build /src/packages/webhooks/dist packages/webhooks/dist
COPY --from=build /src/packages/client/package.json packages/client/
COPY --from=build /src/packages/client/dist packages/client/dist
COPY --from=build /src/dist ./dist
# The migrations where the compiled storage code looks first (next to it), the pages' files and the CLI.
COPY --from=build /src/src/storage/migrations ./dist/storage/migrations
COPY --from=build /src/public ./public
COPY --from=build /src/bin ./bin
COPY --from=build /src/scripts/ensure-built.mjs ./scripts/
RUN ln -s /app/bin/vaultkeeper.mjs /usr/local/bin/vaultkeeper
USER vaultkeeper
# Embedded PGlite keeps its files here when DATABASE_URL is unset; a volume, so they outlive the container.
VOLUME /data
EXPOSE 3000
# Liveness: /livez answers 200 while the process and its event loop turn, whatever ROLES is.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The exec form: the service itself is the process that receives SIGTERM. ROLES, DATABASE_URL, REDIS_URL
# and the rest come from the environment (docs/CONFIGURATION.md).
CMD ["node", "dist/main.js"]
