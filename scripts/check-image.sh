#!/usr/bin/env bash
# CI: builds the container image (Dockerfile) with `podman build --isolation chroot` and runs its CMD from
# the image's mounted file system under chroot, with DATA_DIR on a temporary directory, until /livez and
# the image's own HEALTHCHECK command answer; then SIGTERM must stop it cleanly. Machines that can build
# images but not run containers can still check what the image runs (docs/OPERATIONS.md, Containers).
#
# The base is a build argument. Without a registry, a Node 24 base is made here once and kept in podman's
# storage: a minimal Debian from debootstrap, the official Node binary from the npm registry's
# node-linux-<arch> package and npm from its own package. Run as root (podman's storage, mounts, chroot).
#   BASE=<image>     build from this base instead (made when it is localhost/vaultkeeper-base:* and missing)
#   IMAGE=<name>     the tag to build (vaultkeeper:ci)
#   DEBIAN_MIRROR    where debootstrap fetches from (http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=${BASE:-localhost/vaultkeeper-base:node24}
IMAGE=${IMAGE:-vaultkeeper:ci}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm

work=$(mktemp -d)
mounted=""
server=""
cleanup() {
  [ -z "$server" ] || kill -KILL "$server" 2>/dev/null || true
  [ -z "$mounted" ] || podman image unmount "$IMAGE" >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

script_started=$(date +%s)
seconds() { echo $(($(date +%s) - $1)); }

build_base() {
  local started rootfs=$work/rootfs arch
  started=$(date +%s)
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "no Node package for $(uname -m)"; exit 1 ;;
  esac
  echo "making the base $BASE: Debian $SUITE (minbase) + Node 24 + npm"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log"; exit 1; }
  # As the slim images: no documentation, manuals, translations or package lists.
  rm -rf "$rootfs"/usr/share/{doc,man,info,locale}/* "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  mkdir -p "$work/node" "$work/npm" "$rootfs/usr/local/lib/node_modules"
  (cd "$work" && npm pack --silent "node-linux-$arch@24" "npm@11" >/dev/null)
  tar -xzf "$work"/node-linux-"$arch"-*.tgz -C "$work/node"
  tar -xzf "$work"/npm-*.tgz -C "$work/npm"
  install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
  mv "$work/npm/package" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  tar -C "$rootfs" -c . | podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["node"]' - "$BASE" >/dev/null
  rm -rf "$rootfs"
  echo "base made in $(seconds "$started") s"
}

if ! podman image exists "$BASE"; then
  case "$BASE" in
    localhost/vaultkeeper-base:*) build_base ;;
    *) echo "base image $BASE is missing"; exit 1 ;;
  esac
fi

started=$(date +%s)
# The docker format keeps HEALTHCHECK (the OCI format has no field for it). The CA that this machine's
# Node trusts besides the usual ones (a TLS-inspecting proxy's) reaches npm ci as a build secret.
build_flags=(--isolation chroot --format docker --build-arg "BASE=$BASE" -t "$IMAGE")
[ -z "${NODE_EXTRA_CA_CERTS:-}" ] || build_flags+=(--secret "id=ca,src=$NODE_EXTRA_CA_CERTS")
podman build --quiet "${build_flags[@]}" . >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; exit 1; }
echo "built $IMAGE from $BASE in $(seconds "$started") s; size $(podman image inspect --format '{{.Size}}' "$IMAGE" |
  awk '{ printf "%.0f MB", $1 / 1e6 }')"

# What the image runs, as it declares it.
inspect() { podman image inspect --format "$1" "$IMAGE"; }
user=$(inspect '{{.Config.User}}')
workdir=$(inspect '{{.Config.WorkingDir}}')
data_dir=$(inspect '{{range .Config.Env}}{{println .}}{{end}}' | sed -n 's/^DATA_DIR=//p')
mapfile -t env < <(inspect '{{range .Config.Env}}{{println .}}{{end}}' | grep -v '^$')
mapfile -t command < <(inspect '{{range .Config.Entrypoint}}{{println .}}{{end}}{{range .Config.Cmd}}{{println .}}{{end}}' | grep -v '^$')
mapfile -t health < <(inspect '{{range .Config.Healthcheck.Test}}{{println .}}{{end}}' | grep -v '^$')
case "$user" in '' | root | 0 | 0:*) echo "the image runs as root"; exit 1 ;; esac
[ -n "$data_dir" ] || { echo "the image sets no DATA_DIR"; exit 1; }
[ "${health[0]:-}" = CMD ] || { echo "the image has no HEALTHCHECK (exec form)"; exit 1; }

mnt=$(podman image mount "$IMAGE")
mounted=1
ids=$(awk -F: -v u="$user" '$1 == u || $3 == u { print $3 ":" $4 }' "$mnt/etc/passwd")
[ -n "$ids" ] || { echo "user $user is not in the image's /etc/passwd"; exit 1; }
volume=$work/volume
install -d -m 0700 -o "${ids%:*}" -g "${ids#*:}" "$volume"
port=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
# The image's environment, on loopback, with an RPC endpoint on a closed port: the ingestor stays off
# the network.
run_env=("${env[@]}" HOST=127.0.0.1 "PORT=$port" SOLANA_RPC_URL=http://127.0.0.1:9)

# Runs a command of the image as its user, in a mount namespace of its own: the temporary directory is
# the volume, /proc and /dev as a runtime gives them; all of it unmounted when the command ends. The
# host's network namespace (a runtime would give one of its own).
# shellcheck disable=SC2016 # the inner script's own variables
in_image=(unshare --mount --propagation private -- sh -c '
  mnt=$1 volume=$2 data_dir=$3 ids=$4 workdir=$5; shift 5
  mount --bind "$volume" "$mnt$data_dir" && mount -t proc proc "$mnt/proc" && mount --rbind /dev "$mnt/dev" &&
    exec chroot --userspec="$ids" "$mnt" /usr/bin/env -i --chdir="$workdir" "$@"
' sh "$mnt" "$volume" "$data_dir" "$ids" "$workdir" "${run_env[@]}")

started=$(date +%s)
echo "running ${command[*]} from the image's file system as $user ($ids) on port $port"
"${in_image[@]}" "${command[@]}" >"$work/service.log" 2>&1 &
server=$!
fail() {
  echo "$1"
  echo "--- service log"
  tail -n 40 "$work/service.log"
  exit 1
}
for _ in $(seq 1 600); do
  curl -fsS "http://127.0.0.1:$port/livez" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || fail "the service exited before /livez answered"
  sleep 0.25
done
curl -fsS "http://127.0.0.1:$port/livez" >/dev/null || fail "/livez did not answer within 150 s"
echo "/livez answered $(seconds "$started") s after start: $(curl -fsS "http://127.0.0.1:$port/livez")"
"${in_image[@]}" "${health[@]:1}" || fail "the image's HEALTHCHECK command failed"
echo "the image's HEALTHCHECK passes"
[ -n "$(ls -A "$volume")" ] || fail "nothing was written to the volume ($data_dir)"

kill -TERM "$server"
for _ in $(seq 1 60); do kill -0 "$server" 2>/dev/null || break; sleep 0.25; done
kill -0 "$server" 2>/dev/null && fail "the service did not stop within 15 s of SIGTERM"
status=0
wait "$server" || status=$?
server=""
[ "$status" -eq 0 ] || fail "the service exited with $status on SIGTERM"
echo "stopped on SIGTERM with 0; the whole check took $(seconds "$script_started") s"
# The layers of earlier builds stay as the cache of the next; a week's worth is enough.
podman image prune --force --filter until=168h >/dev/null
