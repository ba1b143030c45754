# The image of the difftry sidecar (`difftry proxy --config FILE`) and of the whole difftry CLI:
#   docker build -t difftry/proxy:0.1.0 .
#   docker run --rm -v "$PWD/sidecar.yaml:/etc/difftry/sidecar.yaml:ro" \
#     -e DIFFTRY_MESH_TOKEN=… difftry/proxy:0.1.0 proxy --config /etc/difftry/sidecar.yaml
# `difftry mesh k8s` writes Deployments that run it this way. See docs/kubernetes.md.

# ---- build: compile src/ and web/ to dist/ with the locked dev dependencies, then drop them --
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The web UI's page (`difftry ui`), built by vite into dist/web; it bundles the example files.
COPY web ./web
COPY examples ./examples
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: Node, the compiled CLI, its production dependencies; nothing else -------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The built-in network files behind `--example NAME`.
COPY examples/*.yaml ./examples/
# The official image's `node` user, by number so that Kubernetes can check runAsNonRoot.
USER 1000:1000
# The sidecar's inbound listener, outbound listener (bind it to loopback) and /metrics, /healthz.
EXPOSE 15006 15001 15020
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["proxy", "--help"]
