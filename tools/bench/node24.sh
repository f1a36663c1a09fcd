#!/usr/bin/env bash
# `npm run bench`: the benchmarks on the functions' runtime, Node 24, installed and checked as CI
# installs it (.ci/node24: the npm registry's build, its checksum pinned, cached outside the clone),
# whatever Node runs npm. Arguments go to tools/bench/bench.ts (`-- --only receiver`).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${CDK_BANK_WEBHOOKS_CI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/cdk-bank-webhooks-ci}"
mkdir -p "$cache"
.ci/node24 "$cache" >&2
bin="$cache/node-$(cat .ci/node24.version)/bin"
PATH="$bin:$PATH" exec "$bin/node" --import tsx tools/bench/bench.ts "$@"
