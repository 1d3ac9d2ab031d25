#!/usr/bin/env bash
set -euo pipefail

# Print a timestamped message.
log() {
  echo "[$(date +%H:%M:%S)] $*"
}

deploy() {
  local target="$1"
  log "deploying to $target"
  if [ -z "$target" ]; then
    log "no target"
    return 1
  fi
  rsync -a build/ "$target"/
  log "done"
}

deploy "${1:-staging}"
