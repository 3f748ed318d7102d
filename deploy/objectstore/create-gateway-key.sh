#!/bin/sh
# One-shot init for docker-compose.yml: gives the gateway its own key pair on the object store
# (GATEWAY_BACKEND_ACCESS_KEY_ID / GATEWAY_BACKEND_SECRET_ACCESS_KEY) instead of the root account.
# Idempotent: re-running it updates the secret and keeps the policy. Runs in the object-store image,
# which ships the MinIO client as `mcli`.
set -eu

: "${OBJECT_STORE_URL:?}" "${OBJECT_STORE_ROOT_USER:?}" "${OBJECT_STORE_ROOT_PASSWORD:?}"
: "${GATEWAY_BACKEND_ACCESS_KEY_ID:?}" "${GATEWAY_BACKEND_SECRET_ACCESS_KEY:?}"

mcli alias set store "$OBJECT_STORE_URL" "$OBJECT_STORE_ROOT_USER" "$OBJECT_STORE_ROOT_PASSWORD" >/dev/null
mcli admin user add store "$GATEWAY_BACKEND_ACCESS_KEY_ID" "$GATEWAY_BACKEND_SECRET_ACCESS_KEY"

# The gateway creates, lists and deletes buckets and objects for every organisation: readwrite (s3:*).
info=$(mcli admin user info store "$GATEWAY_BACKEND_ACCESS_KEY_ID")
case "$info" in
  *readwrite*) echo "policy readwrite already attached to $GATEWAY_BACKEND_ACCESS_KEY_ID" ;;
  *) mcli admin policy attach store readwrite --user "$GATEWAY_BACKEND_ACCESS_KEY_ID" ;;
esac
