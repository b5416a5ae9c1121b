#!/bin/bash
# mk/deps.sh: make sure the Debian packages listed in mk/packages, and the
# base's linux-source package (BASE=6.1: patches/6.1/BASE), are installed.
# Installs the missing ones when run as root, fails otherwise.
# Fast no-op when everything is present.
set -euo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"

command -v dpkg-query >/dev/null || die "dpkg-query not found; this project needs Debian 12"
list=$ROOT/mk/packages
[[ -r $list ]] || die "$list missing"
mapfile -t pkgs < <(sed 's/#.*//' "$list" | xargs -n1)
((${#pkgs[@]})) || die "$list lists no packages"
# The base's linux-source package (BASE=6.1: patches/6.1/BASE).
read -r base_pkg _ <"$BASE_PIN" || die "${BASE_PIN#"$ROOT"/}: cannot read the base's package"
[[ -n ${base_pkg:-} ]] || die "${BASE_PIN#"$ROOT"/} names no package"
[[ " ${pkgs[*]} " == *" $base_pkg "* ]] || pkgs+=("$base_pkg")

declare -A installed=()
while read -r pkg status; do
	[[ -z $pkg || $status != installed ]] || installed[$pkg]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${pkgs[@]}" 2>/dev/null || true)

missing=()
for pkg in "${pkgs[@]}"; do
	[[ -n ${installed[$pkg]:-} ]] || missing+=("$pkg")
done
((${#missing[@]})) || exit 0

if ((EUID != 0)); then
	die "missing Debian packages: ${missing[*]} (run 'make deps' as root, or install them)"
fi
say "installing missing packages: ${missing[*]}"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
