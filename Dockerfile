# nightshift worker / dashboard image: Node 20 + Chromium (evaluator) + bubblewrap (bash sandbox) + git.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium bubblewrap git ca-certificates redis-tools \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/nightshift
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NIGHTSHIFT_HOME=/data \
    NIGHTSHIFT_CHROMIUM=/usr/bin/chromium \
    NODE_ENV=production
VOLUME ["/data"]
ENTRYPOINT ["node", "bin/nightshift.js"]
CMD ["worker"]
