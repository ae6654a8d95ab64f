#!/bin/sh
# Slurm epilog for CapLab: restores GPU power limits that a CapLab sweep of the ending job left changed because it
# was killed before it could restore them itself. Only limits journalled by owners that are gone are touched; with
# nothing left to restore it does nothing. Install on every GPU node, as root:
#   slurm.conf: Epilog=/etc/slurm/epilog.d/caplab-epilog.sh
# CAPLAB_HOME is the CapLab checkout or install (the folder with bin/caplab.mjs); NODE_BIN the Node.js binary.
CAPLAB_HOME="${CAPLAB_HOME:-/opt/caplab}"
NODE_BIN="${NODE_BIN:-$(command -v node || echo /usr/bin/node)}"
CLI="$CAPLAB_HOME/bin/caplab.mjs"
[ -x "$NODE_BIN" ] && [ -f "$CLI" ] || exit 0
# The host journal the users' tasks wrote: /run/caplab where it exists (created for everyone at boot), else
# /dev/shm/caplab, as CapLab itself chooses.
if [ -z "$CAPLAB_LEASE_DIR" ]; then
  if [ -d /run/caplab ]; then CAPLAB_LEASE_DIR=/run/caplab; else CAPLAB_LEASE_DIR=/dev/shm/caplab; fi
  export CAPLAB_LEASE_DIR
fi
# Restores run as the job's user (Slurm sets SLURM_JOB_USER for the epilog): CapLab trusts only journal entries its
# own user or root wrote (an entry another user planted must not choose what root does), and the job's sweep set
# its limits with that user's rights (sudo rule or root), so restoring them needs no more. Root's own entries next.
LOG="${CAPLAB_EPILOG_LOG:-/var/log/caplab-epilog.log}"
JOB_USER="${SLURM_JOB_USER:-root}"
if [ "$(id -u)" = 0 ] && [ "$JOB_USER" != root ] && id -u "$JOB_USER" >/dev/null 2>&1; then
  runuser -u "$JOB_USER" -- "$NODE_BIN" "$CLI" restore-caps \
    --db "${CAPLAB_EPILOG_DB:-/var/tmp/caplab-epilog-$JOB_USER.db}" >>"$LOG" 2>&1
fi
"$NODE_BIN" "$CLI" restore-caps --db "${CAPLAB_EPILOG_DB:-/var/tmp/caplab-epilog.db}" >>"$LOG" 2>&1
# An epilog that fails drains the node: a failed restore is logged (and retried by the next CapLab start) instead.
exit 0
