#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fetches the Adreno CP microcode blobs (a530_pfp/pm4, a630/a650/a660_sqe) from Debian's
# firmware-qcom-soc package (component non-free-firmware) and unpacks them into DEST.
# The blobs are non-free: never commit them. Tests find them through GPUVP_ADRENO_FW_DIR
# (environment) or the CMake cache variable GPUVP_ADRENO_FW_DIR.
#
# usage: tools/fetch-adreno-firmware.sh DEST
set -eu
DEST=${1:?usage: $0 DEST-folder}
BLOBS="a530_pfp.fw a530_pm4.fw a630_sqe.fw a650_sqe.fw a660_sqe.fw"
PKG=firmware-qcom-soc
mkdir -p "$DEST"

have_all() {
  for b in $BLOBS; do [ -s "$DEST/$b" ] || return 1; done
  return 0
}
if have_all; then echo "fetch-adreno-firmware: blobs already in $DEST"; exit 0; fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

# The URI of the machine's own Debian archive for SUITE, from its apt sources (one-line .list
# entries or deb822 .sources stanzas): the added component comes from the same mirror.
debian_uri() {
  suite=$1
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v s="$suite" '
      function flush() { if (deb && hit && uri != "") { print uri; found = 1; exit } deb = hit = 0; uri = "" }
      /^[ \t]*$/ { flush(); next }
      /^#/ { next }
      tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == s) hit = 1 }
      tolower($1) == "enabled:" && tolower($2) == "no" { deb = 0 }
      END { if (!found) flush() }' "$f"
  done
}

# 1. Make sure an apt source carries the non-free-firmware component.
if ! grep -rqs 'non-free-firmware' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  . /etc/os-release
  SUITE=${VERSION_CODENAME:-bookworm}
  URI=$(debian_uri "$SUITE" | head -n 1)
  if [ -z "$URI" ]; then
    echo "fetch-adreno-firmware: no apt source for Debian $SUITE in /etc/apt; add the non-free-firmware component by hand" >&2
    exit 1
  fi
  echo "fetch-adreno-firmware: adding the non-free-firmware component of $URI $SUITE"
  $SUDO sh -c "cat > /etc/apt/sources.list.d/gpuvp-non-free-firmware.sources" <<SRC
Types: deb
URIs: $URI
Suites: $SUITE
Components: non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $SUDO apt-get update -qq
elif ! apt-cache show "$PKG" >/dev/null 2>&1; then
  $SUDO apt-get update -qq
fi

# 2. Take the files from the installed package if present, else download the .deb and unpack it.
SRC_DIR=/lib/firmware/qcom
if ! [ -s "$SRC_DIR/a630_sqe.fw" ] && ! [ -s "$SRC_DIR/a630_sqe.fw.xz" ]; then
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  (cd "$WORK" && apt-get download "$PKG")
  dpkg-deb -x "$WORK"/"$PKG"_*.deb "$WORK/root"
  SRC_DIR="$WORK/root/lib/firmware/qcom"
fi

missing=""
for b in $BLOBS; do
  if [ -s "$SRC_DIR/$b" ]; then
    cp "$SRC_DIR/$b" "$DEST/$b"
  elif [ -s "$SRC_DIR/$b.xz" ]; then
    xz -dc "$SRC_DIR/$b.xz" > "$DEST/$b"
  elif [ -s "$SRC_DIR/$b.zst" ]; then
    zstd -dqc "$SRC_DIR/$b.zst" > "$DEST/$b"
  else
    missing="$missing $b"
  fi
done
if [ -n "$missing" ]; then
  echo "fetch-adreno-firmware: not in $PKG:$missing (tests needing them are skipped)" >&2
fi
echo "fetch-adreno-firmware: blobs in $DEST"
ls -l "$DEST"
