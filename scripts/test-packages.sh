#!/usr/bin/env bash
# Every package's tests (`pnpm test` runs this after the build and the typecheck), in two groups
# on a 2-core machine:
# - the packages whose tests measure or bound time under load, or load the machine themselves
#   (a hostile peer's healthy calls within 1 s, CLI retry back-off, the A/B gate's measurement,
#   1 GiB transfers, fuzzing servers), one at a time, so that nothing else runs beside them;
# - the rest, two at a time: their tests wait on child processes more than they compute, and
#   none of them measures time.
set -euo pipefail
cd "$(dirname "$0")/.."
ALONE=(@nearwire/uds @nearwire/grpc-uds @nearwire/shm-ring @nearwire/transfer nearwire-bench)
turbo=(npx -y pnpm@12.4.2 exec turbo run test)
"${turbo[@]}" --concurrency=2 "${ALONE[@]/#/--filter=!}"
"${turbo[@]}" --concurrency=1 "${ALONE[@]/#/--filter=}"
