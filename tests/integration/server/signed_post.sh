#!/bin/sh
# POST a JSON file to the backend's internal API, signed with the ingest secret.
# usage: signed_post.sh BASE_URL SECRET PATH BODY_FILE
# (the README's spider-less walkthrough uses exactly these steps)
set -eu
base=$1 secret=$2 path=$3 body=$4
ts=$(date +%s)
body_sha=$(openssl dgst -sha256 -r "$body" | cut -d' ' -f1)
sig=$(printf 'POST\n%s\n%s\n%s' "$path" "$ts" "$body_sha" |
  openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
curl -sS -X POST "$base$path" \
  -H "X-RK-Timestamp: $ts" -H "X-RK-Signature: $sig" \
  -H 'Content-Type: application/json' --data-binary "@$body"
