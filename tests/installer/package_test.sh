#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the .debs (cpack), runs lintian (errors fail), then installs, reinstalls, removes and purges
# them in a scratch root with dpkg --root and chrootless maintainer scripts, checking what each step
# leaves: files, the railyard user, owners and modes, tokens, the conffile, the enabled unit, and a
# node started from the installed default config. Touches nothing outside its temporary folder.
#   package_test.sh BUILD_DIR console|no-console
set -euo pipefail

build=$(cd "$1" && pwd)
console=false
[ "${2:-console}" = console ] && console=true
tmp=$(mktemp -d)
node_pid=""
cleanup() {
  [ -z "$node_pid" ] || kill -KILL "$node_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

step() { echo "--- $*"; }
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
check() {  # check DESCRIPTION COMMAND...: runs the command, fails with the description if it fails.
  local what=$1
  shift
  "$@" || fail "$what"
}
mode_owner() { stat -c '%a %u:%g' "$1"; }

step "cpack"
(cd "$build" && cpack -B "$tmp/debs" --config CPackConfig.cmake >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log"; fail "cpack"; }
node_deb=$(echo "$tmp"/debs/railyard-node_*.deb)
console_deb=$(echo "$tmp"/debs/railyard-console_*.deb)
dev_deb=$(echo "$tmp"/debs/librailyard-dev_*.deb)
lib_deb=$(echo "$tmp"/debs/librailyard[0-9]*_*.deb)
for deb in "$node_deb" "$dev_deb" "$lib_deb"; do check "no package $deb" test -f "$deb"; done
lib_package=$(dpkg-deb -f "$lib_deb" Package)
if $console; then check "no console package" test -f "$console_deb"; else
  [ ! -e "$console_deb" ] || fail "a console package from a build without the console"
fi
debs=("$tmp"/debs/*.deb)

step "lintian"
status=0
# With informational tags (-I), where the hardening ones are: none may appear.
lintian -I --fail-on error --tag-display-limit 0 "${debs[@]}" >"$tmp/lintian.log" 2>&1 || status=$?
grep -v 'running with root' "$tmp/lintian.log" || true
[ "$status" -eq 0 ] || fail "lintian reports errors"
if grep -q 'hardening-' "$tmp/lintian.log"; then fail "a binary lacks Debian's hardening flags"; fi

step "Depends"
check "librailyard-dev does not depend on $lib_package" grep -q "$lib_package" \
  <<<"$(dpkg-deb -f "$dev_deb" Depends)"
check "$lib_package has no shlibs file" grep -q "librailyard_rpc" <(dpkg-deb -I "$lib_deb" shlibs)
check "$lib_package has no ldconfig trigger" grep -q "ldconfig" <(dpkg-deb -I "$lib_deb" triggers)
node_depends=$(dpkg-deb -f "$node_deb" Depends)
echo "railyard-node: $node_depends"
if grep -qi 'qt' <<<"$node_depends"; then fail "railyard-node depends on Qt"; fi
check "railyard-node does not depend on adduser" grep -q 'adduser' <<<"$node_depends"
if $console; then
  console_depends=$(dpkg-deb -f "$console_deb" Depends)
  check "railyard-console does not depend on Qt" grep -q 'libqt6widgets6' <<<"$console_depends"
  # A console linked with jemalloc (RAILYARD_CONSOLE_MALLOC) must bring it along.
  mkdir -p "$tmp/console"
  dpkg-deb -x "$console_deb" "$tmp/console"
  if objdump -p "$tmp/console/usr/bin/railyard" | grep -q 'NEEDED.*libjemalloc'; then
    check "railyard-console does not depend on libjemalloc2" grep -q 'libjemalloc2' \
      <<<"$console_depends"
  fi
fi

root=$tmp/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
dpkg_root() {
  dpkg --root="$root" --force-script-chrootless --force-not-root --force-depends --log=/dev/null \
    "$@" >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg $*"; }
}

step "install"
dpkg_root -i "${debs[@]}"

for binary in railyard-node railyardctl; do
  check "$binary --version" grep -q "^$binary " <<<"$("$root/usr/bin/$binary" --version)"
done
for file in lib/systemd/system/railyard-node.service usr/lib/sysusers.d/railyard.conf \
  usr/share/bash-completion/completions/railyardctl usr/share/doc/railyard-node/README.md usr/share/doc/railyard-node/guide.md \
  usr/share/doc/railyard-node/examples/railyard-node.textproto \
  usr/share/railyard/monitoring/railyard-dashboard.json \
  usr/share/railyard/monitoring/railyard-alerts.textproto \
  usr/share/railyard/monitoring/railyard-alerts.yml; do
  check "missing /$file" test -s "$root/$file"
done
pages=(railyard-node railyardctl)
docs=(railyard-node librailyard-dev "$lib_package")
if $console; then
  pages+=(railyard)
  docs+=(railyard-console)
fi
for page in "${pages[@]}"; do
  check "man page of $page" grep -q '^\.TH' <(zcat "$root/usr/share/man/man1/$page.1.gz")
done
check "railyardctl's man page lacks its subcommands" grep -q 'railyardctl drain' \
  <(zcat "$root/usr/share/man/man1/railyardctl.1.gz")
for package in "${docs[@]}"; do
  check "$package: copyright" grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
    "$root/usr/share/doc/$package/copyright"
  check "$package: changelog" grep -q "^$package (" <(zcat "$root/usr/share/doc/$package/changelog.gz")
done
if $console; then
  check "console --version" grep -q '^railyard ' <<<"$("$root/usr/bin/railyard" --version)"
  desktop=$root/usr/share/applications/railyard.desktop
  check "desktop entry Exec" grep -qx 'Exec=railyard %f' "$desktop"
  check "desktop entry MimeType" grep -qx 'MimeType=application/x-railyard-recording;' "$desktop"
  mime=$root/usr/share/mime/packages/railyard.xml
  check "MIME type" grep -q 'type="application/x-railyard-recording"' "$mime"
  check "MIME glob" grep -q 'pattern="\*.rec"' "$mime"
  # shared-mime-info takes it (in a copy: the database it writes is not the package's).
  cp -r "$root/usr/share/mime" "$tmp/mime"
  update-mime-database "$tmp/mime"
  check "update-mime-database has no *.rec glob" \
    grep -qx '[0-9]*:application/x-railyard-recording:\*\.rec' "$tmp/mime/globs2"
  check "scalable icon" test -s "$root/usr/share/icons/hicolor/scalable/apps/railyard.svg"
  check "PNG icon" cmp -n 8 <(printf '\x89PNG\r\n\x1a\n') \
    "$root/usr/share/icons/hicolor/256x256/apps/railyard.png"
fi

step "user, owners, modes, tokens"
user=$(grep '^railyard:' "$root/etc/passwd") || fail "no railyard user in $root/etc/passwd"
IFS=: read -r _ _ uid gid _ home shell <<<"$user"
check "railyard group" grep -q "^railyard:x:$gid:" "$root/etc/group"
[ "$home" = /var/lib/railyard ] || fail "home $home"
[ "$shell" = /usr/sbin/nologin ] || fail "shell $shell"
[ "$uid" -lt 1000 ] || fail "uid $uid is not a system uid"
[ "$(mode_owner "$root/etc/railyard")" = "750 0:$gid" ] || fail "/etc/railyard: $(mode_owner "$root/etc/railyard")"
[ "$(mode_owner "$root/var/lib/railyard")" = "750 $uid:$gid" ] ||
  fail "/var/lib/railyard: $(mode_owner "$root/var/lib/railyard")"
for tokens in viewer.tokens operator.tokens; do
  file=$root/etc/railyard/$tokens
  [ "$(mode_owner "$file")" = "640 0:$gid" ] || fail "$tokens: $(mode_owner "$file")"
  check "$tokens holds no random token" grep -qxE '[0-9a-f]{48}' "$file"
done
cmp -s "$root/etc/railyard/viewer.tokens" "$root/etc/railyard/operator.tokens" &&
  fail "the viewer and the operator token are the same"
check "conffile not in dpkg's status" grep -q '^ /etc/railyard/node.textproto [0-9a-f]' \
  "$root/var/lib/dpkg/status"
check "unit not enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/railyard-node.service"

step "the default config starts a node that takes the package's tokens"
# Addresses and data folder moved into the test's own; the rest is the installed conffile.
"$root/usr/bin/railyard-node" --config "$root/etc/railyard/node.textproto" --data-dir "$tmp/data" \
  --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 \
  --viewer-token-file "$root/etc/railyard/viewer.tokens" \
  --operator-token-file "$root/etc/railyard/operator.tokens" >"$tmp/node.out" 2>"$tmp/node.err" &
node_pid=$!
for _ in $(seq 300); do  # At most 30 s.
  grep -q ' serving ' "$tmp/node.err" && break
  kill -0 "$node_pid" 2>/dev/null || break
  sleep 0.1
done
grep -q ' serving ' "$tmp/node.err" || { cat "$tmp/node.err"; fail "the node did not start"; }
admin=$(sed -n 's/^LISTEN .* ADMIN //p' "$tmp/node.out")
"$root/usr/bin/railyardctl" status -n "$admin" --token-file "$root/etc/railyard/viewer.tokens" \
  >"$tmp/status.out" 2>&1 || { cat "$tmp/status.out"; fail "railyardctl status with the viewer token"; }
check "the default config's metrics listener did not start" grep -q '^METRICS 127.0.0.1:' "$tmp/node.out"
kill -TERM "$node_pid"
status=0
wait "$node_pid" || status=$?
node_pid=""
[ "$status" -eq 0 ] || { cat "$tmp/node.err"; fail "the node exited with $status"; }

step "reinstall keeps the tokens and the operator's config"
cp "$root/etc/railyard/operator.tokens" "$tmp/operator.tokens"
echo '# edited by the operator' >>"$root/etc/railyard/node.textproto"
dpkg_root -i "$node_deb"
check "tokens replaced" cmp -s "$tmp/operator.tokens" "$root/etc/railyard/operator.tokens"
check "config replaced" grep -q 'edited by the operator' "$root/etc/railyard/node.textproto"
[ "$(grep -c '^railyard:' "$root/etc/passwd")" = 1 ] || fail "two railyard users"

step "remove keeps config, tokens and state"
dpkg_root -r railyard-node
for gone in usr/bin/railyard-node usr/bin/railyardctl lib/systemd/system/railyard-node.service; do
  [ ! -e "$root/$gone" ] || fail "/$gone left after remove"
done
for kept in etc/railyard/node.textproto etc/railyard/viewer.tokens etc/railyard/operator.tokens \
  var/lib/railyard; do
  check "/$kept removed with the package" test -e "$root/$kept"
done

step "purge removes them; the user stays"
dpkg_root -P railyard-node
for gone in etc/railyard var/lib/railyard \
  etc/systemd/system/multi-user.target.wants/railyard-node.service; do
  [ ! -e "$root/$gone" ] || fail "/$gone left after purge"
done
check "railyard user removed" grep -q '^railyard:' "$root/etc/passwd"
others=(librailyard-dev "$lib_package")
if $console; then others+=(railyard-console); fi
dpkg_root -P "${others[@]}"
left=$(cd "$root" && { find usr lib etc/railyard -type f 2>/dev/null || true; })
[ -z "$left" ] || fail "files left after purging everything: $left"

echo "PASS"
