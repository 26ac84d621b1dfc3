#!/usr/bin/env bash
# Starts a fresh Lendgate server (embedded database, in a temporary directory) configured for this example,
# type-checks the example (and @lendgate/client, whose types are generated from the partner document) and runs
# the whole journey in test mode (test keys and the mint secret only: no internal token, no
# verification delivery; the server may POST webhooks to the example's local http receiver).
# Used by .ci/run; handy locally too. Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")/../.."

PORT="${QUICKSTART_SERVER_PORT:-3100}"
RECEIVER_PORT="${RECEIVER_PORT:-4100}"
export PARTNER_MINT_SECRET="quickstart-mint-$(node -e "process.stdout.write(require('crypto').randomBytes(16).toString('hex'))")"
SERVER_URL="http://127.0.0.1:${PORT}"
export LENDGATE_BASE_URL="${SERVER_URL}/public/v1" RECEIVER_PORT
DATA_DIR="$(mktemp -d)"

PORT="$PORT" DATA_DIR="$DATA_DIR" LOG_LEVEL=warn \
  WEBHOOK_SECRET_KEY="$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))")" \
  WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOW_PRIVATE_NETWORKS=true \
  node_modules/.bin/tsx --conditions=@lendgate/source apps/api/src/main.ts &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -rf "$DATA_DIR"' EXIT

for _ in $(seq 1 60); do
  curl -sf "${SERVER_URL}/health/ready" >/dev/null 2>&1 && break
  sleep 1
done

cd examples/partner-quickstart
npx -y pnpm@10.34.8 -s typecheck
npx -y pnpm@10.34.8 -s start
