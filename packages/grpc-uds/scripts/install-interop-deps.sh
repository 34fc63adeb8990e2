#!/usr/bin/env bash
# Installs the stock gRPC peers of packages/grpc-uds's interop tests, from Debian apt, when they
# are missing (needs root or sudo for that one step):
# - required: Python grpcio + protobuf (as /usr/bin/python3) and protoc
#   (test/interop-python*.test.ts, interop-health, interop-reflection); a failed install fails.
# - best effort: Go with Debian's grpc-go 1.33 in /usr/share/gocode (test/interop-go.test.ts,
#   built in GOPATH mode, no module proxy) and curl with HTTP/2 (test/interop-curl.test.ts).
#   When they cannot be installed (no root) those tests skip, printing why.
# Called by `pnpm test` in this package (and so by .ci/run) before the tests.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=""
apt_install() {
  if [ -z "$updated" ]; then
    $SUDO apt-get update -qq
    updated=1
  fi
  $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

if ! { /usr/bin/python3 -c "import grpc, google.protobuf" 2>/dev/null && command -v protoc >/dev/null; }; then
  apt_install python3-grpcio python3-protobuf protobuf-compiler
fi

GOCODE=/usr/share/gocode/src
if ! command -v go >/dev/null ||
  [ ! -f "$GOCODE/google.golang.org/grpc/server.go" ] ||
  [ ! -d "$GOCODE/google.golang.org/protobuf" ]; then
  apt_install golang-go golang-google-grpc-dev golang-google-protobuf-dev ||
    echo "install-interop-deps: Go and grpc-go could not be installed; test/interop-go.test.ts will skip" >&2
fi

if ! command -v curl >/dev/null; then
  apt_install curl ||
    echo "install-interop-deps: curl could not be installed; test/interop-curl.test.ts will skip" >&2
fi
