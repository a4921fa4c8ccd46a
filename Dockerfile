# nightshift worker / dashboard image: Node 20 + Chromium's headless shell (evaluator) + bubblewrap (bash sandbox) + git
# + python3 (the process helper that starts harness git: a start 5× cheaper than from Node; docs/architecture.md).
# Two stages: `build` installs every dependency and bundles the dashboard UI with vite (a dev dependency);
# the runtime stage has production dependencies only, plus the built UI, which the dashboard serves as it is.
# test/integration/deploy/image-steps.test.ts performs these steps without a Docker engine.

FROM node:20-bookworm-slim AS build
WORKDIR /opt/nightshift
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:ui

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium-headless-shell bubblewrap git ca-certificates redis-tools python3 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/nightshift
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
COPY --from=build /opt/nightshift/dashboard/ui/dist ./dashboard/ui/dist
# The CLI's bundle (bin/entry-bundle.js), made now so a container never starts through the slower loader.
RUN node bin/nightshift.js --version
ENV NIGHTSHIFT_HOME=/data \
    NIGHTSHIFT_CHROMIUM=/usr/lib/chromium/chromium-headless-shell \
    NODE_ENV=production
VOLUME ["/data"]
ENTRYPOINT ["node", "bin/nightshift.js"]
CMD ["worker"]
