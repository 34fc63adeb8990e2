#!/usr/bin/env bash
# Installs what packages/grpc-uds/test/interop-python.test.ts needs: a stock Python gRPC client
# (Debian's python3-grpcio + python3-protobuf, used as /usr/bin/python3) and protoc.
# Called from .ci/run before the tests; needs root (or sudo) and Debian apt.
set -euo pipefail
if /usr/bin/python3 -c "import grpc, google.protobuf" 2>/dev/null && command -v protoc >/dev/null; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends python3-grpcio python3-protobuf protobuf-compiler
