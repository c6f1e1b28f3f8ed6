# The service image: Node 20, production dependencies only, run with `npm start` (tsx's loader runs
# the TypeScript sources directly; there is no build step).
FROM node:20-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so that a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY . .

# In a container the service must listen beyond loopback. DATA_DIR only matters without
# DATABASE_URL (the embedded PostgreSQL), and must then be writable by the unprivileged user.
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/.data
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node

EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM reaches the service through npm, whose script execs node (`node --import tsx`: one
# process, no shell or launcher in between); it drains requests, stops its projection runners and
# exits 0 (compose runs it under an init process: `init: true`).
CMD ["npm", "start"]
