#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/xen-test.sh: 'make xen-test', the series on a live Xen.
#
# Boots Debian's Xen 4.17 under QEMU (TCG) with the x86_64 KUnit kernel
# (build/kunit-x86_64, configured with lab/xen/xen-test.config) as PV dom0
# with xen.fifo_events=0, and judges from the serial log:
#   dom0 boot      Xen 4.17 up, dom0 says "xen:events: Using 2-level ABI"
#   dom0 KUnit     the suites' KTAP printed at boot (kunit.py parse): no
#                  failure and no skip (the live cases must run on Xen)
#   dom0 stress    evtchn-stress loop in dom0 (TAP)
#   Xen tools      xenstored, xen-init-dom0, xenconsoled started in dom0
#   domU boot      a PV guest running the same kernel (xen.fifo_events=0),
#                  created with xl, reached its init, 2-level ABI
#   domU KUnit     the guest's KTAP, from its console log
#   exchange       events between dom0 and the guest over an interdomain
#                  channel (evtchn-stress serve/peer), none lost
#   kernel splats  no WARNING/BUG/Oops/Call Trace/UBSAN/hung task/RCU
#                  stall/panic (nor a Xen panic) anywhere in the serial log
#   shutdown       dom0's init finished and powered off in time
#   width bug      (ARCH=arm) the base as released and the base with patch 1
#                  alone, booted as dom0 running evtchn-stress width: the
#                  base must lose events, on ports 2048-4095 only, patch 1
#                  none (XEN_TEST_WIDTH_RUNS=N: N runs of each; figures in
#                  build/out/width.txt, for the cover letter)
# then prints "xen-test: N passed, M failed"; non-zero exit on a failure.
# ARCH=arm|arm64 (XEN_ARCH): Debian's Xen for armhf or arm64 and the arm
# or arm64 KUnit kernel (lab/xen/xen-test-arm.config), the guest an Arm
# (PVH-style) guest; dom0's stress then uses every free port (up to 4095).
# dom0's init is lab/xen/dom0-init (the guest's lab/xen/domU-init): the
# stages are between "xen-test: stage NAME begin/end rc=N" markers there.
#
# KERNEL=path/to/linux-image-*.deb (from 'make deb', or any Debian kernel
# package) boots that package's kernel instead, as dom0 and as the guest,
# with its modules in both initramfs images and loaded by a "modules"
# stage (dom0: xen-evtchn xenfs xen-privcmd xen-gntdev; the guest:
# xen-evtchn); the KUnit stages run only if the package's kernel has the
# suite built in, and are otherwise reported as not run, not as passed.
#
# Environment: XEN_TEST_TIMEOUT (QEMU's hard limit, seconds, default 600),
# XEN_TEST_EVENTS (events exchanged, default 10000, 2000 on Arm), XEN_TEST_NO_BUILD=1
# (use the KUnit kernel as it is, never rebuild it).
# Logs: build/logs/xen-test-*.
set -eEuo pipefail
# shellcheck source=mk/lib.sh
. "$(dirname "$0")/lib.sh"
# A command that ends the script under set -e says which, and where (once,
# a make check run on a new machine stopped here without a word).
trap 'echo "$PROG: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)" >&2' ERR

LAB=$ROOT/lab/xen
# XEN_ARCH (make xen-test ARCH=...): x86_64 (PV dom0 and guest), arm
# (Xen armhf, 32-bit dom0 and guest) or arm64 (Xen arm64, 64-bit dom0).
XEN_ARCH=${XEN_ARCH:-x86_64}
# QEMU: the machine; on Arm, guest-loader devices (QEMU 7.2) load dom0's
# kernel and initramfs where Xen finds them (/chosen/module@ nodes).
case $XEN_ARCH in
x86_64)
	DEB_ARCH=amd64 TRIPLET=x86_64-linux-gnu KIMAGE=arch/x86/boot/bzImage
	QEMU=(qemu-system-x86_64 -accel tcg -cpu "max,-smap")
	;;
arm)
	DEB_ARCH=armhf TRIPLET=arm-linux-gnueabihf KIMAGE=arch/arm/boot/zImage
	QEMU=(qemu-system-arm -M "virt,virtualization=on,highmem=off" -cpu cortex-a15)
	LOAD_KERNEL=0x42000000 LOAD_INITRD=0x60000000
	;;
arm64)
	DEB_ARCH=arm64 TRIPLET=aarch64-linux-gnu KIMAGE=arch/arm64/boot/Image
	QEMU=(qemu-system-aarch64 -M "virt,virtualization=on,gic-version=3" -cpu cortex-a57)
	LOAD_KERNEL=0x49000000 LOAD_INITRD=0x60000000
	;;
*) die "ARCH=$XEN_ARCH: make xen-test runs on x86_64, arm or arm64" ;;
esac
# On Arm Xen, its tools and busybox are Debian's packages of that
# architecture, downloaded under a private APT configuration.
FOREIGN=0
[[ $XEN_ARCH == x86_64 ]] || FOREIGN=1
# Names of the other architectures' directories and logs: xen-ARCH.
SFX=
[[ $XEN_ARCH == x86_64 ]] || SFX=-$XEN_ARCH
XBUILD=$BUILD/xen$SFX
KDIR=$(kunit_build_dir "$XEN_ARCH")
BZIMAGE=$KDIR/$KIMAGE
KCONFIG_FILE=$KDIR/.config
# KERNEL=...deb: the package (not left in the environment of what runs).
PKG=${KERNEL:-}
unset KERNEL
PKG_DIR=$XBUILD/pkg
MODDIR=
HAS_KUNIT=1
# Under TCG an Arm machine runs several times slower than an x86 one:
# longer limits there, and a longer wait for an event in evtchn-stress.
TIMEOUT=${XEN_TEST_TIMEOUT:-$( ((FOREIGN)) && echo 1500 || echo 600)}
STRESS_TIMEOUT_MS=$( ((FOREIGN)) && echo 20000 || echo 2000)
# 2000 round trips take about 15 s in an Arm guest under TCG (10000 on x86).
EVENTS=${XEN_TEST_EVENTS:-$( ((FOREIGN)) && echo 2000 || echo 10000)}
# dom0's evtchn-stress loop: 1000 ports on x86; on Arm, where the width
# bug lives, every free port (ports 2048-4095 are words 32-63).
STRESS_PORTS=$( ((FOREIGN)) && echo max || echo 1000)
XEN_SERIES=4.17
XEN_PKGS=("xen-hypervisor-$XEN_SERIES-$DEB_ARCH" "xen-utils-$XEN_SERIES")
# On Arm: the libraries the tools need (their NEEDED entries, resolved in
# the unpacked packages; a missing one stops the run) and busybox.
ARM_PKGS=(libxencall1 libxendevicemodel1 libxenevtchn1 libxenforeignmemory1
	libxengnttab1 libxenhypfs1 "libxenmisc$XEN_SERIES" libxenstore4
	libxentoolcore1 libxentoollog1 libyajl2 libc6 libgcc-s1 libfdt1 libext2fs2
	libuuid1 libbz2-1.0 liblzma5 libzstd1 zlib1g libblkid1 libcom-err2
	busybox-static)
XEN_BIN=/usr/lib/xen-$XEN_SERIES/bin
XEN_TOOLS=(xl xenstored xenconsoled xen-init-dom0)
# What the kernel needs for every stage (lab/xen/xen-test.config): built
# in, and built in or (in a package) as modules.
KCONFIG_BUILTIN=(XEN_DOM0 HVC_XEN XEN_BACKEND UNIX UNIX98_PTYS
	BLK_DEV_INITRD RD_GZIP DEVTMPFS TMPFS)
[[ $XEN_ARCH != x86_64 ]] || KCONFIG_BUILTIN+=(XEN_PV)
[[ $XEN_ARCH == x86_64 ]] || KCONFIG_BUILTIN+=(SMP)
KCONFIG_MODULES=(XEN_DEV_EVTCHN XENFS XEN_PRIVCMD XEN_GNTDEV)
KCONFIG_KUNIT=(KUNIT XEN_EVTCHN_2L_KUNIT_TEST)
case $XEN_ARCH in
x86_64) XEN_ARGS="console=com1 com1=115200 dom0_mem=1024M,max:1024M dom0_max_vcpus=2 spec-ctrl=eager-fpu" ;;
*) XEN_ARGS="console=dtuart dom0_mem=768M dom0_max_vcpus=2" ;;
esac
# No comma in dom0's arguments: QEMU splits multiboot modules on commas.
# The live labs add their own to DOM0_BASE_ARGS.
DOM0_BASE_ARGS="console=hvc0 earlyprintk=xen xen.fifo_events=0 panic=-1"
# On Xen only the live suite runs at boot: xen_evtchn_2l swaps in a fake
# shared_info and skips itself there (the bare KUnit runs cover it).
KUNIT_ON_XEN="kunit.filter_glob=xen_evtchn_2l_live"
DOM0_ARGS="$DOM0_BASE_ARGS $KUNIT_ON_XEN xentest.events=$EVENTS xentest.watchdog=$((TIMEOUT - 60))"
DOM0_ARGS+=" xentest.guest=$((TIMEOUT / 2)) xentest.timeout=$STRESS_TIMEOUT_MS xentest.ports=$STRESS_PORTS"
SPLATS='WARNING:|BUG:|Oops|Call Trace|UBSAN|blocked for more than|detected stall|Kernel panic'
XEN_SPLATS='^\(XEN\) (Panic on CPU|Xen BUG at|Assertion .* failed|FATAL )'

# KERNEL=...deb: logs named xen-test-pkg-*, apart from the test kernel's.
L=$LOGS/xen-test$SFX${PKG:+-pkg}
SERIAL=$L-serial.log
PREPLOG=$L-prepare.log

[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "XEN_TEST_TIMEOUT must be a number of seconds"
((TIMEOUT >= 120)) ||
	die "XEN_TEST_TIMEOUT must be at least 120 (seconds)"
[[ $EVENTS =~ ^[0-9]+$ ]] || die "XEN_TEST_EVENTS must be a number"

# ---------------------------------------------------------- requirements ---
check_host() {
	local cmd
	# The Debian packages of mk/packages (the Xen tools' libraries among
	# them): mk/deps.sh installs what is missing, or names it.
	"$ROOT/mk/deps.sh"
	for cmd in "${QEMU[0]}" cpio gzip python3 apt-get dpkg-deb timeout; do
		command -v "$cmd" >/dev/null || die "$cmd not found"
	done
	if ((FOREIGN)); then
		command -v readelf >/dev/null || die "readelf not found (Debian package binutils)"
		command -v "$(cross_prefix "$XEN_ARCH")gcc" >/dev/null ||
			die "$(cross_prefix "$XEN_ARCH")gcc not found (mk/packages)"
	# The guest's initramfs has no libraries: busybox must be static.
	elif [[ ! -x /bin/busybox ]] || ldd /bin/busybox >/dev/null 2>&1; then
		die "/bin/busybox missing or not static (Debian package busybox-static)"
	fi
	[[ $ROOT != *[,\ ]* ]] ||
		die "the repo path '$ROOT' contains a comma or a space (QEMU's -initrd cannot name it)"
}

# The test kernel, built (and its suite run once bare) by mk/kunit.sh when
# missing or older than build/linux or its configuration.
kernel_needs_build() {
	local f
	[[ -f $BZIMAGE ]] || return 0
	for f in "$LINUX/.git/series-stamp" "$LAB/$XEN_CONFIG" "$ROOT/mk/kunit.sh" \
		"$LINUX/drivers/xen/events/tests/.kunitconfig"; do
		[[ ! $f -nt $BZIMAGE ]] || return 0
	done
	return 1
}

# unpack_package: KERNEL=...deb unpacked in build/xen/pkg; sets BZIMAGE,
# KCONFIG_FILE, MODDIR (its /lib/modules/RELEASE, if any) and HAS_KUNIT.
unpack_package() {
	local name krel opt
	[[ -f $PKG ]] || die "KERNEL=$PKG: no such file"
	name=$(dpkg-deb -f "$PKG" Package 2>/dev/null) ||
		die "KERNEL=$PKG: not a Debian package (dpkg-deb cannot read it)"
	[[ $name == linux-image-* ]] ||
		die "KERNEL=$PKG: package $name is not a kernel image (linux-image-*)"
	rm -rf "$PKG_DIR"
	mkdir -p "$PKG_DIR"
	dpkg-deb -x "$PKG" "$PKG_DIR" || die "KERNEL=$PKG: dpkg-deb -x failed"
	BZIMAGE=$(find "$PKG_DIR/boot" -maxdepth 1 -name 'vmlinuz-*' -print -quit 2>/dev/null) || true
	[[ -n $BZIMAGE ]] || die "KERNEL=$PKG: no boot/vmlinuz-* in $name"
	krel=${BZIMAGE##*/vmlinuz-}
	KCONFIG_FILE=$PKG_DIR/boot/config-$krel
	[[ -f $KCONFIG_FILE ]] || die "KERNEL=$PKG: no boot/config-$krel in $name"
	if [[ -d $PKG_DIR/lib/modules/$krel ]]; then
		MODDIR=$PKG_DIR/lib/modules/$krel
	fi
	for opt in "${KCONFIG_MODULES[@]}"; do
		grep -qE "^CONFIG_$opt=[ym]\$" "$KCONFIG_FILE" ||
			die "KERNEL=$PKG: CONFIG_$opt is neither =y nor =m in boot/config-$krel"
		if grep -qx "CONFIG_$opt=m" "$KCONFIG_FILE" && [[ -z $MODDIR ]]; then
			die "KERNEL=$PKG: CONFIG_$opt=m but the package has no lib/modules/$krel"
		fi
	done
	HAS_KUNIT=1
	for opt in "${KCONFIG_KUNIT[@]}"; do
		grep -qx "CONFIG_$opt=y" "$KCONFIG_FILE" || HAS_KUNIT=0
	done
	say "kernel: $name $(dpkg-deb -f "$PKG" Version) (release $krel, ${MODDIR:+modules, }KUnit suite: $( ((HAS_KUNIT)) && echo built in || echo no))"
}

XEN_CONFIG=xen-test.config
[[ $XEN_ARCH == x86_64 ]] || XEN_CONFIG=xen-test-arm.config
check_kernel() {
	local opt
	if [[ -n $PKG ]]; then
		unpack_package
		for opt in "${KCONFIG_BUILTIN[@]}"; do
			grep -qx "CONFIG_$opt=y" "$KCONFIG_FILE" ||
				die "KERNEL=$PKG: CONFIG_$opt=y missing in its config (needed to boot as dom0 here)"
		done
		return
	fi
	if [[ ${XEN_TEST_NO_BUILD:-} == 1 ]]; then
		[[ -f $BZIMAGE ]] || die "$BZIMAGE missing (XEN_TEST_NO_BUILD=1)"
	elif kernel_needs_build; then
		say "building the test kernel: mk/kunit.sh $XEN_ARCH"
		if ! "$ROOT/mk/kunit.sh" "$XEN_ARCH"; then
			# A failure of the bare run (not of the build) still
			# leaves a kernel worth testing on Xen.
			! kernel_needs_build || die "mk/kunit.sh $XEN_ARCH failed"
			warn "mk/kunit.sh $XEN_ARCH failed, but built $BZIMAGE: going on"
		fi
	fi
	for opt in "${KCONFIG_BUILTIN[@]}" "${KCONFIG_MODULES[@]}" "${KCONFIG_KUNIT[@]}"; do
		grep -qx "CONFIG_$opt=y" "$KCONFIG_FILE" ||
			die "CONFIG_$opt=y missing in $KCONFIG_FILE (see lab/xen/$XEN_CONFIG)"
	done
}

# --------------------------------------------------- Xen from Debian -----
# Debian's Xen hypervisor and tools, the version of the installed
# libraries, downloaded (apt-get download) and unpacked in build/xen/root;
# the hypervisor, gunzipped, is build/xen/xen.elf.
XROOT=$XBUILD/root
XEN_ELF=$XBUILD/xen.elf
fetch_xen() {
	local ver p deb tmp
	if ((FOREIGN)); then
		fetch_xen_foreign
		return
	fi
	ver=$(dpkg-query -W -f='${Version}' "libxenmisc$XEN_SERIES")
	if [[ -f $XROOT/.version && $(<"$XROOT/.version") == "$ver" && -f $XEN_ELF ]]; then
		return
	fi
	say "fetching Debian's Xen $ver (${XEN_PKGS[*]})"
	mkdir -p "$XBUILD/debs"
	local debs=()
	for p in "${XEN_PKGS[@]}"; do
		deb=$(find_deb "$p" "$ver")
		if [[ -z $deb ]]; then
			if ! (cd "$XBUILD/debs" && apt-get download "$p=$ver") >>"$PREPLOG" 2>&1; then
				# A fresh machine may have no package lists yet.
				if ((EUID == 0)); then
					apt-get update >>"$PREPLOG" 2>&1 || true
					(cd "$XBUILD/debs" && apt-get download "$p=$ver") >>"$PREPLOG" 2>&1 ||
						die "cannot download Debian package $p=$ver (see $PREPLOG)"
				else
					die "cannot download Debian package $p=$ver (see $PREPLOG; 'apt-get update' as root?)"
				fi
			fi
			deb=$(find_deb "$p" "$ver")
			[[ -n $deb ]] || die "Debian package $p=$ver not found after apt-get download"
		fi
		debs+=("$deb")
	done
	tmp=$XBUILD/root.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for deb in "${debs[@]}"; do
		dpkg-deb -x "$deb" "$tmp" || die "cannot unpack $deb"
	done
	[[ -f $tmp/boot/xen-$XEN_SERIES-amd64.gz ]] ||
		die "xen-hypervisor-$XEN_SERIES-amd64 has no boot/xen-$XEN_SERIES-amd64.gz"
	for p in "${XEN_TOOLS[@]}"; do
		[[ -x $tmp$XEN_BIN/$p ]] || die "xen-utils-$XEN_SERIES has no $XEN_BIN/$p"
	done
	gzip -dc "$tmp/boot/xen-$XEN_SERIES-amd64.gz" >"$XEN_ELF.tmp"
	mv "$XEN_ELF.tmp" "$XEN_ELF"
	echo "$ver" >"$tmp/.version"
	rm -rf "$XROOT"
	mv "$tmp" "$XROOT"
}

# fetch_xen_foreign: the same for Arm, from Debian's packages of that
# architecture (Xen, its tools, the libraries of ARM_PKGS, busybox-static)
# downloaded under a private APT configuration in build/xen-ARCH/apt (its
# own sources list, lists, status and cache; the host's apt sources and
# dpkg architectures stay as they are).  Xen's version is the one the
# archive has; delete build/xen-ARCH to fetch again.
fetch_xen_foreign() {
	local apt=$XBUILD/apt tmp deb p ver hv
	hv=boot/xen-$XEN_SERIES-$DEB_ARCH
	if [[ -f $XROOT/.version && -f $XEN_ELF ]]; then
		return
	fi
	say "fetching Debian's Xen $XEN_SERIES, its tools and busybox for $DEB_ARCH (private APT configuration in ${apt#"$ROOT"/}; log: $PREPLOG)"
	mkdir -p "$XBUILD/debs"
	private_apt "$apt" "$DEB_ARCH" \
		"deb [arch=$DEB_ARCH] http://deb.debian.org/debian bookworm main" \
		"deb [arch=$DEB_ARCH] http://deb.debian.org/debian bookworm-updates main" \
		"deb [arch=$DEB_ARCH] http://deb.debian.org/debian-security bookworm-security main" ||
		die "apt-get update for $DEB_ARCH failed (see ${apt#"$ROOT"/}/update.log)"
	rm -f "$XBUILD/debs"/*.deb
	(cd "$XBUILD/debs" && APT_CONFIG=$apt/apt.conf apt-get -q download \
		"${XEN_PKGS[@]/%/:$DEB_ARCH}" "${ARM_PKGS[@]/%/:$DEB_ARCH}") >>"$PREPLOG" 2>&1 ||
		die "cannot download Debian's $DEB_ARCH packages ${XEN_PKGS[*]} ${ARM_PKGS[*]} (see $PREPLOG)"
	tmp=$XBUILD/root.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	for deb in "$XBUILD/debs"/*.deb; do
		dpkg-deb -x "$deb" "$tmp" || die "cannot unpack $deb"
	done
	[[ -f $tmp/$hv ]] || die "xen-hypervisor-$XEN_SERIES-$DEB_ARCH has no $hv"
	for p in "${XEN_TOOLS[@]}"; do
		[[ -x $tmp$XEN_BIN/$p ]] || die "xen-utils-$XEN_SERIES ($DEB_ARCH) has no $XEN_BIN/$p"
	done
	[[ -x $tmp/bin/busybox ]] || die "busybox-static ($DEB_ARCH) has no bin/busybox"
	ver=$(dpkg-deb -f "$XBUILD/debs/xen-hypervisor-$XEN_SERIES-${DEB_ARCH}_"*.deb Version)
	cp "$tmp/$hv" "$XEN_ELF.tmp"
	mv "$XEN_ELF.tmp" "$XEN_ELF"
	echo "$ver" >"$tmp/.version"
	rm -rf "$XROOT"
	mv "$tmp" "$XROOT"
}

# find_deb PACKAGE VERSION: the downloaded .deb of that version, if any.
find_deb() {
	local f
	for f in "$XBUILD/debs/$1"_*_amd64.deb; do
		[[ -f $f && $(dpkg-deb -f "$f" Version) == "$2" ]] || continue
		echo "$f"
		return
	done
}

# ------------------------------------------------------------ evtchn-stress
# lab/xen-evtchn/evtchn-stress, static (dom0 and the guest), by
# its Makefile (make rebuilds it when its source changes).
STRESS=$XBUILD/stress/evtchn-stress
STRESS_DIR=$ROOT/lab/xen-evtchn
build_stress() {
	[[ -f $STRESS_DIR/evtchn-stress.c ]] ||
		die "$STRESS_DIR/evtchn-stress.c missing"
	mkdir -p "$(dirname "$STRESS")"
	make -C "$STRESS_DIR" -s OUTPUT="$(dirname "$STRESS")/" CFLAGS=-O2 \
		CC="$(cross_prefix "$XEN_ARCH")gcc" LDFLAGS=-static evtchn-stress >>"$PREPLOG" 2>&1 ||
		die "cannot build evtchn-stress (see $PREPLOG)"
	[[ -x $STRESS ]] || die "$STRESS missing after make evtchn-stress"
}

# ------------------------------------------------------------ initramfs ---
# stage_libs DIR FILE...: the shared libraries FILE... need (ldd on the
# host, against the installed packages) into DIR, at the same paths.  On
# Arm: their NEEDED entries and interpreter (readelf), found in the
# unpacked packages, at their paths there.
stage_libs() {
	local dir=$1 f line lib
	if ((FOREIGN)); then
		stage_libs_foreign "$@"
		return
	fi
	shift
	for f; do
		while read -r line; do
			case $line in
			*"not found"*)
				die "$(basename "$f") needs ${line%% *}, not found on the host (a Debian package missing from mk/packages?)" ;;
			*"=> /"*) lib=${line#*=> } lib=${lib%% (*} ;;
			/*) lib=${line%% (*} ;;
			*) continue ;;
			esac
			mkdir -p "$dir$(dirname "$lib")"
			cp -L "$lib" "$dir$lib"
		done < <(ldd "$f")
	done
}

stage_libs_foreign() {
	local dir=$1 f so lib interp d todo
	declare -A seen=()
	shift
	todo=("$@")
	while ((${#todo[@]})); do
		f=${todo[-1]}
		unset 'todo[-1]'
		interp=$(readelf -l "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
		if [[ -n $interp && -z ${seen[$interp]:-} ]]; then
			seen[$interp]=1
			[[ -e $XROOT$interp ]] || die "$(basename "$f") needs $interp, not in the unpacked packages"
			mkdir -p "$dir$(dirname "$interp")"
			cp -L "$XROOT$interp" "$dir$interp"
		fi
		while read -r so; do
			[[ -z ${seen[$so]:-} ]] || continue
			seen[$so]=1
			lib=
			for d in "lib/$TRIPLET" "usr/lib/$TRIPLET" lib usr/lib; do
				if [[ -e $XROOT/$d/$so ]]; then
					lib=/$d/$so
					break
				fi
			done
			[[ -n $lib ]] ||
				die "$(basename "$f") needs $so, not in the unpacked packages (its Debian package missing from ARM_PKGS in mk/xen-test.sh?)"
			mkdir -p "$dir$(dirname "$lib")"
			cp -L "$XROOT$lib" "$dir$lib"
			todo+=("$XROOT$lib")
		done < <(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	done
}

# busybox_root DIR INIT: a fresh tree in DIR with busybox, INIT as /init
# and the usual directories (the init installs the applet links).
busybox_root() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,etc}
	if ((FOREIGN)); then
		cp "$XROOT/bin/busybox" "$dir/bin/busybox"
	else
		cp /bin/busybox "$dir/bin/busybox"
	fi
	ln -s busybox "$dir/bin/sh"
	install -m 755 "$2" "$dir/init"
	install -m 755 "$STRESS" "$dir/usr/bin/evtchn-stress"
	if [[ -n $MODDIR ]] && ((FOREIGN)); then
		copy_modules "$dir"
	elif [[ -n $MODDIR ]]; then
		mkdir -p "$dir/lib/modules"
		cp -a "$MODDIR" "$dir/lib/modules/"
	fi
}

# copy_modules DIR: on Arm, only the modules the stages load (PKG_MODULES)
# and what they depend on (modinfo), with the package's modules.* files
# and a modules.dep made for them:
# all of an armmp kernel's would not fit in the guest's memory, and at
# Xen's load address they overran what follows.
PKG_MODULES=(xen-evtchn xenfs xen-privcmd xen-gntdev)
copy_modules() {
	local dir=$1 rel m f dep todo
	declare -A have=()
	rel=$(basename "$MODDIR")
	mkdir -p "$dir/lib/modules/$rel"
	cp "$MODDIR"/modules.* "$dir/lib/modules/$rel/" 2>/dev/null || true
	todo=("${PKG_MODULES[@]}")
	while ((${#todo[@]})); do
		m=${todo[-1]}
		unset 'todo[-1]'
		[[ -z ${have[$m]:-} ]] || continue
		have[$m]=1
		f=$(find "$MODDIR" -name "$m.ko*" -print -quit)
		[[ -n $f ]] || f=$(find "$MODDIR" -name "${m//-/_}.ko*" -print -quit)
		[[ -n $f ]] || die "KERNEL=$PKG: module $m not found in ${MODDIR#"$ROOT"/}"
		mkdir -p "$dir/lib/modules/$rel/$(dirname "${f#"$MODDIR"/}")"
		cp "$f" "$dir/lib/modules/$rel/${f#"$MODDIR"/}"
		for dep in $(modinfo -F depends "$f" | tr ',' ' '); do
			todo+=("$dep")
		done
	done
	# The package has no modules.dep (depmod runs at install); busybox's
	# modprobe needs one.
	/sbin/depmod -b "$dir" "$rel" >>"$PREPLOG" 2>&1 ||
		die "depmod for the modules of $PKG failed (see $PREPLOG)"
}

# mkcpio DIR OUT: DIR as a gzipped newc cpio, reproducibly (sorted, owner
# root, mtime 0), rewritten only when DIR's contents changed.
mkcpio() {
	local dir=$1 out=$2 sum
	find "$dir" -exec touch -h -d @0 {} +
	sum=$(cd "$dir" && find . -printf '%M %p %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
	sum=$(sha256sum <<<"$sum")
	if [[ -f $out && -f $out.sum && $(<"$out.sum") == "$sum" ]]; then
		return
	fi
	(cd "$dir" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null --quiet -o -H newc -R 0:0 --reproducible) | gzip -n -6 >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "$sum" >"$out.sum"
}

# stage_xen_tools DIR: the Xen tools in root DIR, with their libraries,
# xl's directories and configuration, and the script that starts them
# (/etc/xen-tools.sh).
stage_xen_tools() {
	local r=$1 t lib bins=()
	mkdir -p "$r$XEN_BIN" "$r/etc/xen" \
		"$r"/var/{lib/xen,lib/xenstored,log/xen/console,run/xen,run/xenstored,lock}
	for t in "${XEN_TOOLS[@]}"; do
		cp "$XROOT$XEN_BIN/$t" "$r$XEN_BIN/$t"
		bins+=("$XROOT$XEN_BIN/$t")
	done
	stage_libs "$r" "${bins[@]}"
	# glibc loads libgcc_s at run time (pthread_cancel, used by xl).
	# awk reads to the end: exiting early would kill ldconfig with SIGPIPE,
	# a failure under pipefail (it was, now and then, make check's).
	if ((FOREIGN)); then
		lib=/lib/$TRIPLET/libgcc_s.so.1
		[[ -f $XROOT$lib ]] || die "$lib not in the unpacked packages (libgcc-s1, $DEB_ARCH)"
		stage_libs "$r" "$XROOT$lib"
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$XROOT$lib" "$r$lib"
		install -m 644 "$LAB/xen-tools.sh" "$r/etc/xen-tools.sh"
		install -m 644 "$LAB/xl.conf" "$r/etc/xen/xl.conf"
		return
	fi
	lib=$(/sbin/ldconfig -p | awk '$1 == "libgcc_s.so.1" && /x86-64/ && !n++ { print $NF }')
	[[ -n $lib ]] || die "libgcc_s.so.1 not found on the host (Debian package libgcc-s1)"
	stage_libs "$r" "$lib"
	mkdir -p "$r$(dirname "$lib")"
	cp -L "$lib" "$r$lib"
	install -m 644 "$LAB/xen-tools.sh" "$r/etc/xen-tools.sh"
	install -m 644 "$LAB/xl.conf" "$r/etc/xen/xl.conf"
}

# stage_diagnostics DIR: for dom0-init's guest_diagnostics (a guest that
# does not end in time), on x86: xenctx and the test kernel's System.map
# in /xen-test, for the guest's stacks.  (Not yet tried on Arm.)
stage_diagnostics() {
	local r=$1 t=$XROOT$XEN_BIN/xenctx
	((!FOREIGN)) || return 0
	if [[ -x $t ]]; then
		cp "$t" "$r$XEN_BIN/xenctx"
		stage_libs "$r" "$t"
	fi
	[[ -n $PKG || ! -f $KDIR/System.map ]] ||
		install -m 644 "$KDIR/System.map" "$r/xen-test/System.map"
}

build_initramfs() {
	local d=$XBUILD/domU-root r=$XBUILD/dom0-root
	# The guest: busybox, its init, evtchn-stress.
	busybox_root "$d" "$LAB/domU-init"
	mkcpio "$d" "$XBUILD/domU.cpio.gz"

	# dom0: the same, plus the Xen tools and the guest (kernel, initramfs,
	# xl config) in /xen-test.
	busybox_root "$r" "$LAB/dom0-init"
	stage_xen_tools "$r"
	mkdir -p "$r/xen-test"
	install -m 644 "$LAB/$DOMU_CFG" "$r/xen-test/domU.cfg"
	install -m 644 "$BZIMAGE" "$DOM0_KERNEL"
	install -m 644 "$XBUILD/domU.cpio.gz" "$r/xen-test/domU.cpio.gz"
	stage_diagnostics "$r"
	mkcpio "$r" "$XBUILD/dom0.cpio.gz"
}

# ----------------------------------------------------------------- QEMU ---
# dom0's kernel: the copy the guest runs too (the build directory's may be
# rebuilt meanwhile).
# On Arm the guest is lab/xen/domU-arm.cfg (an Arm guest, not PV).
DOMU_CFG=domU.cfg
DOM0_KERNEL=$XBUILD/dom0-root/xen-test/bzImage
if ((FOREIGN)); then
	DOMU_CFG=domU-arm.cfg
	DOM0_KERNEL=$XBUILD/dom0-root/xen-test/kernel
fi
QEMU_PID=
kill_qemu() {
	if [[ -n $QEMU_PID ]]; then
		kill "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
		QEMU_PID=
	fi
}

# The last landmark the serial log has reached, for the progress lines.
landmark() {
	grep -aoE '^\(XEN\) Xen version [^ ]+|Linux version [^ ]+|KTAP version 1|Using [-a-zA-Z0-9]+ ABI|xen-test: .*' \
		"$1" 2>/dev/null | tail -n 1 | tr -d '\r' || true
}

# The live labs that source this script set QEMU_MEM (MB), QEMU_EXTRA
# (more QEMU arguments, e.g. a NIC) and qemu_tick, called every second
# with the raw serial log while QEMU runs.
QEMU_MEM=2048
QEMU_EXTRA=()
qemu_tick() { :; }

run_qemu() {
	local raw=$SERIAL.raw t0=$SECONDS last=$SECONDS status=0
	rm -f "$raw"
	local boot=()
	say "booting Xen $(<"$XROOT/.version") ($DEB_ARCH) + dom0 under QEMU (TCG, 2 vCPUs; hard limit ${TIMEOUT}s)"
	if ((FOREIGN)); then
		boot=(-device "guest-loader,addr=$LOAD_KERNEL,kernel=$DOM0_KERNEL,bootargs=$DOM0_ARGS"
			-device "guest-loader,addr=$LOAD_INITRD,initrd=$XBUILD/dom0.cpio.gz")
	else
		boot=(-initrd "$DOM0_KERNEL $DOM0_ARGS,$XBUILD/dom0.cpio.gz")
	fi
	trap kill_qemu EXIT
	trap 'kill_qemu; die "interrupted"' INT TERM
	timeout -k 10 "$TIMEOUT" "${QEMU[@]}" -smp 2 -m "$QEMU_MEM" \
		-nodefaults -display none -monitor none -no-reboot \
		-serial "file:$raw" "${QEMU_EXTRA[@]}" \
		-kernel "$XEN_ELF" -append "$XEN_ARGS" "${boot[@]}" \
		>"$L-qemu.log" 2>&1 &
	QEMU_PID=$!
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		sleep 1
		qemu_tick "$raw"
		if ((SECONDS - last >= 30)); then
			last=$SECONDS
			say "$(fmt_time $((SECONDS - t0))) elapsed, last marker: $(landmark "$raw")"
		fi
	done
	wait "$QEMU_PID" || status=$?
	QEMU_PID=
	trap - EXIT INT TERM
	QEMU_TIME=$((SECONDS - t0))
	QEMU_STATUS=$status
	tr -d '\r' <"$raw" >"$SERIAL"
	rm -f "$raw"
}

# ------------------------------------------------------------ width bug ---
# Patch 1's bug shown live (make xen-test ARCH=arm): the base as released
# and the base with patch 1 alone (as stable would apply it), each booted
# as dom0 running only evtchn-stress width (xentest.mode=width).  Both are
# built with the test kernel's configuration (its .config, olddefconfig)
# in $XBUILD/width/kbuild, from a worktree of build/linux in
# $XBUILD/width/linux: the same path relative to the objects as the test
# kernel's sources (../linux), so that ccache serves every object the
# trees share.  XEN_TEST_WIDTH=0|1 turns the stage off or on (on by
# default for ARCH=arm without KERNEL=).
WIDTH=${XEN_TEST_WIDTH:-$([[ $XEN_ARCH == arm && -z $PKG ]] && echo 1 || echo 0)}
[[ $WIDTH == [01] ]] || die "XEN_TEST_WIDTH must be 0 or 1"
if ((WIDTH)) && [[ $XEN_ARCH != arm || -n $PKG ]]; then
	die "XEN_TEST_WIDTH=1 needs ARCH=arm (32-bit Arm, the bug's) and no KERNEL="
fi
WIDTH_RUNS=${XEN_TEST_WIDTH_RUNS:-1}
[[ $WIDTH_RUNS =~ ^[1-9][0-9]*$ ]] || die "XEN_TEST_WIDTH_RUNS must be a number, at least 1"
WIDTH_ROUNDS=2000
WT=$XBUILD/width/linux
WOBJ=$XBUILD/width/kbuild

# width_kernel NAME REV: $XBUILD/width/NAME-REV-CONFIG.zImage (CONFIG: a
# hash of the test kernel's .config), built if missing; in WIDTH_IMAGE.
width_kernel() {
	local name=$1 rev=$2 out log=$LOGS/xen-test$SFX-width-build.log sum
	sum=$(sha256sum "$KCONFIG_FILE" | cut -c1-12)
	out=$XBUILD/width/$name-${rev:0:12}-$sum.zImage
	WIDTH_IMAGE=$out
	[[ ! -f $out ]] || return 0
	mkdir -p "$XBUILD/width"
	linux_worktree "$WT" "$rev" >>"$log" 2>&1 ||
		{ WIDTH_ERR="cannot check $rev out in the worktree $WT (see $log)"; return 1; }
	mkdir -p "$WOBJ"
	cmp -s "$KCONFIG_FILE" "$WOBJ/.config.test" || cp "$KCONFIG_FILE" "$WOBJ/.config.test"
	[[ $WOBJ/.config -nt $WOBJ/.config.test ]] || cp "$WOBJ/.config.test" "$WOBJ/.config"
	say "building the $name kernel ($(git -C "$WT" log -1 --format='%h %s' "$rev")) in ${WOBJ#"$ROOT"/}; log: $log"
	setup_ccache
	{ kmake "$WT" "$WOBJ" arm olddefconfig && kmake "$WT" "$WOBJ" arm -j"$(nproc)" zImage; } \
		>>"$log" 2>&1 </dev/null ||
		{ WIDTH_ERR="the $name kernel did not build (see $log)"; return 1; }
	cp "$WOBJ/$KIMAGE" "$out.tmp"
	mv "$out.tmp" "$out"
}

# width_run NAME KERNEL: boots KERNEL as dom0 with xentest.mode=width;
# sets WIDTH_LINE (evtchn-stress width's line), WIDTH_RC and WIDTH_LOG.
# (The main run's QEMU_TIME, QEMU_STATUS and logs are kept.)
width_run() {
	local name=$1 SERIAL=$L-width-$1-serial.log DOM0_KERNEL=$2 TIMEOUT=480
	local DOM0_ARGS="$DOM0_ARGS xentest.mode=width xentest.watchdog=420 xentest.rounds=$WIDTH_ROUNDS"
	local QEMU_TIME=${QEMU_TIME:-0} QEMU_STATUS=${QEMU_STATUS:-0} L=$L-width-$1 splat
	WIDTH_LOG=$SERIAL
	run_qemu
	WIDTH_RC=$(marker_rc "$SERIAL" width)
	WIDTH_LINE=$(between "$SERIAL" width | grep -m1 '^width: ') || true
	if [[ -z $WIDTH_LINE ]]; then
		WIDTH_LINE="no 'width:' line ($(rc_text "$WIDTH_RC"): $(between "$SERIAL" width | tail -n 1))"
	fi
	# The splat rules of the main run: a splat fails the run.
	splat=$(splats "$SERIAL")
	if [[ -n $splat ]]; then
		WIDTH_RC="splat"
		WIDTH_LINE="a kernel splat: $(head -n 1 <<<"$splat")"
	fi
}

# width_fields LINE: "LOST ROUNDS SECONDS FIRST LAST" of a width: line
# (SECONDS: of the rounds; FIRST..LAST: the lost ports' range, if any).
width_fields() {
	sed -nE 's/^width: rounds ([0-9]+), .* lost ([0-9]+)( \(ports ([0-9]+)\.\.([0-9]+):[^)]*\))?, late [0-9]+, ([0-9.]+) s of rounds.*/\2 \1 \6 \4 \5/p' <<<"$1"
}

# width_stage: in every one of WIDTH_RUNS runs, the base must lose events,
# on ports 2048-4095 only, and the base with patch 1 none.  Each run's
# line goes to $L-width.log.
width_stage() {
	local base p1 i ok=1 lost rounds secs lo hi what="width bug" name
	local base_img p1_img wlog=$L-width.log bl=() br=() bs=() plo=0 pr=0
	base=$(git -C "$LINUX" rev-list --max-parents=0 HEAD)
	p1=$(git -C "$LINUX" rev-list --reverse "$base..HEAD")
	p1=${p1%%$'\n'*}
	name=$(git -C "$LINUX" log -1 --format=%s "$base" | sed 's/ (.*//')
	if [[ $(git -C "$LINUX" log -1 --format=%s "$p1") != *"selector bits 32-63"* ]]; then
		fail "$what" "the first commit after the base, $(git -C "$LINUX" log -1 --format='%h %s' "$p1"), is not the selector fix"
		return
	fi
	if ! width_kernel base "$base"; then
		fail "$what" "$WIDTH_ERR"
		return
	fi
	base_img=$WIDTH_IMAGE
	if ! width_kernel patch1 "$p1"; then
		fail "$what" "$WIDTH_ERR"
		return
	fi
	p1_img=$WIDTH_IMAGE
	: >"$wlog"
	for ((i = 1; i <= WIDTH_RUNS; i++)); do
		say "width run $i/$WIDTH_RUNS: $name as released"
		width_run base "$base_img"
		echo "run $i, base: $WIDTH_LINE" >>"$wlog"
		read -r lost rounds secs lo hi <<<"$(width_fields "$WIDTH_LINE")" || true
		if [[ $WIDTH_RC != 0 || -z ${lost:-} || $lost == 0 ]] || ((lo < 2048 || hi > 4095)); then
			ok=0
			say "  base: not the bug (want events lost, on ports 2048-4095 only): $WIDTH_LINE (log: $WIDTH_LOG)"
		else
			say "  base: $lost events lost, ports $lo..$hi, in $rounds rounds ($secs s)"
			bl+=("$lost") br+=("$rounds") bs+=("$secs")
		fi
		say "width run $i/$WIDTH_RUNS: $name with patch 1 alone"
		width_run patch1 "$p1_img"
		echo "run $i, base + patch 1: $WIDTH_LINE" >>"$wlog"
		read -r lost rounds secs lo hi <<<"$(width_fields "$WIDTH_LINE")" || true
		if [[ $WIDTH_RC != 0 || ${lost:-} != 0 || ${rounds:-} != "$WIDTH_ROUNDS" ]]; then
			ok=0
			say "  patch 1: want 0 lost in $WIDTH_ROUNDS rounds: $WIDTH_LINE (log: $WIDTH_LOG)"
		else
			say "  patch 1: 0 lost in $rounds rounds ($secs s)"
			plo=$((plo + lost)) pr=$((pr + rounds))
		fi
	done
	local out=$BUILD/out/width.txt base_sum p1_sum lost_line
	mkdir -p "$BUILD/out"
	rm -f "$out"
	if ((ok)); then
		# "32 lost in 38 rounds (8.4 s)", or its ranges over the runs.
		span() { printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd- | sed -E 's/^([^-]*)-\1$/\1/'; }
		lost_line="$(span "${bl[@]}") lost in $(span "${br[@]}") rounds ($(span "${bs[@]}") s)"
		base_sum="$lost_line, on ports 2048-4095 only, in each of $WIDTH_RUNS run(s)"
		p1_sum="$plo lost in $pr rounds ($WIDTH_RUNS run(s) of $WIDTH_ROUNDS)"
		{
			echo "Patch 1's bug live (make xen-test ARCH=arm): Xen $(<"$XROOT/.version") armhf"
			echo "under QEMU TCG, 2 vCPUs; dom0 with xen.fifo_events=0 runs evtchn-stress"
			echo "width (a port in each word 32-63 and two in each word 1-31 on vCPU 0, a"
			echo "low and a high one raised together from vCPU 1):"
			echo "  $name as released: $lost_line,"
			echo "    on ports 2048-4095 only, in each of $WIDTH_RUNS run(s)"
			echo "  with patch 1 alone: $p1_sum"
		} >"$out"
		pass "$what" "$name: $base_sum; with patch 1: $p1_sum (figures: ${out#"$ROOT"/}, lines: $wlog)"
	else
		fail "$what" "see the lines above, $wlog and $L-width-{base,patch1}-serial.log"
	fi
}

# --------------------------------------------------------------- judging ---
# splats LOG: the lines of LOG (numbered) that break the splat rules: a
# kernel's SPLATS outside Xen's own lines, then Xen's XEN_SPLATS.
splats() {
	{ grep -anE "$SPLATS" "$1" | grep -av '^[0-9]*:(XEN)'; } || true
	grep -anE "$XEN_SPLATS" "$1" || true
}

PASSED=0 FAILED=0
pass() {
	PASSED=$((PASSED + 1))
	say "$1: $2"
}
fail() {
	FAILED=$((FAILED + 1))
	say "$1: FAILED: $2"
}

# marker_rc LOG STAGE: the rc of "xen-test: stage STAGE end rc=N" in LOG,
# "skipped (...)" or "missing".
marker_rc() {
	local m
	m=$(grep -aoE "^xen-test: stage $2 (end rc=[0-9]+|skipped.*)" "$1" | tail -n 1) || true
	case $m in
	*"end rc="*) echo "${m##*rc=}" ;;
	*skipped*) echo "skipped${m##*skipped}" ;;
	*) echo missing ;;
	esac
}

# rc_text RC: marker_rc's answer for a failure message.
rc_text() {
	case $1 in
	missing) echo "no end marker (the stage did not finish)" ;;
	skipped*) echo "stage $1" ;;
	*) echo "rc=$1" ;;
	esac
}

# between LOG STAGE: the lines between the stage's begin and end markers.
between() {
	awk -v b="xen-test: stage $2 begin" -v e="xen-test: stage $2 end" \
		'index($0, e) == 1 { f = 0 } f { print } index($0, b) == 1 { f = 1 }' "$1"
}

# On Arm no VIRQ_TIMER port exists (only x86 binds one): the live case
# timer_first skips there, saying so, and only that skip is allowed.
ALLOWED_SKIP=
GUEST_KIND=PV
if ((FOREIGN)); then
	ALLOWED_SKIP='evtchn_2l_live_test_timer_first # SKIP .*VIRQ_TIMER.*only x86'
	GUEST_KIND="Arm guest"
fi

# Splits the serial log: the guest's console (printed by dom0's init
# between markers), dom0's console (the rest, without Xen's own lines).
split_logs() {
	awk -v d0="$L-dom0.log" -v du="$L-domU.log" '
		BEGIN { printf "" > d0; printf "" > du }
		/^xen-test: domU console begin/ { u = 1; next }
		/^xen-test: domU console end/ { u = 0; next }
		u { print > du; next }
		/^\(XEN\)/ { next }
		{ print > d0 }' "$SERIAL"
}

# The suite that must report on Xen (the others are filtered out).
expected_suites() {
	echo "${KUNIT_ON_XEN#kunit.filter_glob=}"
}

# kunit_stage WHO CONSOLE INIT_MARK: the KTAP of CONSOLE up to INIT_MARK
# (the init's first line) in $L-WHO-ktap.log, parsed by kunit.py.
kunit_stage() {
	local who=$1 console=$2 mark=$3 ktap=$L-$1-ktap.log out=$L-$1-kunit.txt
	local line p f s status=0 suite missing=() bad
	# Boot messages printed meanwhile (e.g. "Freeing initrd memory") start
	# in column 0 and are not KTAP: leave them out, or kunit.py misreads the
	# suite they fall into.  KTAP's own column-0 lines are kept.
	awk -v m="$mark" 'index($0, m) { exit } /KTAP version 1/ { k = 1 }
		k && (/^[ \t]/ || /^(KTAP version|1\.\.|ok |not ok |# )/)' \
		"$console" >"$ktap"
	if [[ ! -s $ktap ]]; then
		fail "$who KUnit" "no KTAP output in $console"
		return
	fi
	python3 "$LINUX/tools/testing/kunit/kunit.py" parse "$ktap" >"$out" 2>&1 || status=$?
	line=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -o 'Testing complete\. Ran [0-9]* tests:.*' | tail -n 1) || true
	count() { grep -oP "\\b$1: \\K[0-9]+" <<<"$line" || echo 0; }
	p=$(count passed)
	f=$(($(count failed) + $(count crashed) + $(count errors)))
	s=$(count skipped)
	for suite in $(expected_suites); do
		grep -qE "^ *(not )?ok [0-9]+ $suite( |$)" "$ktap" || missing+=("$suite")
	done
	local summary="$p passed, $f failed, $s skipped"
	# A skip is a failure but where ALLOWED_SKIP names the case and why.
	bad=$(grep -E '^ *(not )?ok [0-9]+ .*# SKIP' "$ktap" | grep -cvE "${ALLOWED_SKIP:-^$}") || true
	((s == 0)) || summary+=" ($(grep -oE '[a-z_]+ # SKIP .*' "$ktap" | head -n 3 | paste -sd ';'))"
	if [[ -z $line ]]; then
		fail "$who KUnit" "kunit.py parse found no results (see $out)"
	elif ((status != 0 || f != 0 || bad != 0 || p == 0)); then
		fail "$who KUnit" "$summary (see $out)"
	elif ((${#missing[@]})); then
		fail "$who KUnit" "$summary, but no result for suite(s) ${missing[*]}"
	else
		pass "$who KUnit" "$summary"
	fi
}

# tap_counts TEXT: "N passed, M failed, K skipped" of TAP "ok"/"not ok"
# lines ("ok N - name # SKIP why" is a skip).
tap_counts() {
	local ok nok skip
	ok=$(grep -cE '^ok [0-9]+' <<<"$1") || true
	nok=$(grep -cE '^not ok [0-9]+' <<<"$1") || true
	skip=$(grep -ciE '^(not )?ok [0-9]+.*# *skip' <<<"$1") || true
	echo "$((ok - skip)) passed, $nok failed, $skip skipped"
}

judge() {
	local d0=$L-dom0.log du=$L-domU.log rc rc2 out out2 ver abi n line

	# dom0 boot
	ver=$(grep -aoE '^\(XEN\) Xen version [^ ]+' "$SERIAL" | head -n 1 | awk '{print $4}') || true
	abi=$(grep -aoE 'xen:events: Using [-a-zA-Z0-9]+ ABI' "$d0" | head -n 1) || true
	if [[ $ver != "$XEN_SERIES".* ]]; then
		fail "dom0 boot" "no '(XEN) Xen version $XEN_SERIES' line"
	elif ! grep -q 'Linux version ' "$d0"; then
		fail "dom0 boot" "Xen $ver up, but dom0's kernel printed nothing"
	elif [[ $abi != *"Using 2-level ABI" ]]; then
		fail "dom0 boot" "Xen $ver, dom0 says '${abi:-no xen:events: line}', not 'Using 2-level ABI'"
	elif ! grep -q '^xen-test: dom0 init started' "$d0"; then
		fail "dom0 boot" "Xen $ver, 2-level ABI, but dom0's init did not start"
	else
		pass "dom0 boot" "ok (Xen $ver, 2-level ABI${PKG:+, $(basename "$PKG")})"
	fi

	# The package's modules (KERNEL=...deb only).
	if [[ -n $PKG ]]; then
		rc=$(marker_rc "$d0" modules)
		rc2=$(marker_rc "$du" domU-modules)
		if [[ $rc == 0 && $rc2 == 0 ]]; then
			pass "modules" "ok (dom0: xen-evtchn xenfs xen-privcmd xen-gntdev; domU: xen-evtchn)"
		else
			fail "modules" "dom0: $(rc_text "$rc"); domU: $(rc_text "$rc2") (see $d0, $du)"
		fi
	fi

	if ((HAS_KUNIT)); then
		kunit_stage dom0 "$d0" "xen-test: dom0 init started"
	else
		say "dom0 KUnit: not run (the package's kernel has no KUnit suite built in; not counted)"
	fi

	# dom0 stress: TAP, then the program's closing line.
	rc=$(marker_rc "$d0" dom0-stress)
	out=$(between "$d0" dom0-stress)
	printf '%s\n' "$out" >"$L-dom0-stress.log"
	n=$(tap_counts "$out")
	line=$(grep -m1 '^evtchn-stress: ports' <<<"$out" | sed 's/^evtchn-stress: //') || true
	local top
	top=$(sed -n 's/^ports [0-9]*\.\.\([0-9]*\),.*/\1/p' <<<"$line")
	if ! [[ $rc == 0 && $n =~ ^[1-9][0-9]*\ passed,\ 0\ failed,\ 0\ skipped$ ]]; then
		fail "dom0 stress" "$(rc_text "$rc"), $n (see $L-dom0-stress.log)"
	elif [[ $STRESS_PORTS == max ]] && ((${top:-0} < 4032)); then
		fail "dom0 stress" "ports up to ${top:-?} only: words 32-63 (ports 2048-4095) must all be in use (see $L-dom0-stress.log)"
	else
		pass "dom0 stress" "$n (evtchn-stress loop: ${line:-no summary line})"
	fi

	# Xen tools
	rc=$(marker_rc "$d0" xen-tools)
	if [[ $rc == 0 ]]; then
		pass "dom0 Xen tools" "ok (xenstored, xen-init-dom0, xenconsoled, xl)"
	else
		fail "dom0 Xen tools" "$(rc_text "$rc") (see $d0)"
	fi

	# domU boot
	rc=$(marker_rc "$d0" domU)
	abi=$(grep -aoE 'xen:events: Using [-a-zA-Z0-9]+ ABI' "$du" | head -n 1) || true
	if [[ $rc != 0 ]]; then
		fail "domU boot" "xl create or the guest's run: $(rc_text "$rc") (see $d0)"
	elif ! grep -q 'Linux version ' "$du"; then
		fail "domU boot" "no kernel output in the guest's console log ($du)"
	elif [[ $abi != *"Using 2-level ABI" ]]; then
		fail "domU boot" "the guest says '${abi:-no xen:events: line}', not 'Using 2-level ABI'"
	elif ! grep -q '^xen-test: domU init done' "$du"; then
		fail "domU boot" "the guest's init did not finish (see $du)"
	else
		pass "domU boot" "ok ($GUEST_KIND, 2-level ABI, powered off)"
	fi

	if ! ((HAS_KUNIT)); then
		say "domU KUnit: not run (as in dom0; not counted)"
	elif [[ -s $du ]]; then
		kunit_stage domU "$du" "xen-test: domU init started"
	else
		fail "domU KUnit" "no guest console log"
	fi

	# exchange: the guest's serve and dom0's peer, each must end with
	# "exchange: N events sent, N received, 0 lost", N = XEN_TEST_EVENTS.
	rc=$(marker_rc "$d0" exchange)
	rc2=$(marker_rc "$du" domU-serve)
	out=$(between "$d0" exchange) || true
	out2=$(between "$du" domU-serve) || true
	{
		echo "== domU: evtchn-stress serve --domid 0 --count $EVENTS"
		printf '%s\n' "$out2"
		echo "== dom0: evtchn-stress peer --domid GUEST --port P --count $EVENTS"
		printf '%s\n' "$out"
	} >"$L-exchange.log"
	local want="exchange: $EVENTS events sent, $EVENTS received, 0 lost"
	line=$(grep -m1 '^round trip:' <<<"$out") || true
	if [[ $rc != 0 || $rc2 != 0 ]]; then
		fail "dom0<->domU exchange" "peer: $(rc_text "$rc"); serve: $(rc_text "$rc2") (see $L-exchange.log)"
	elif ! grep -qx "$want" <<<"$out" || ! grep -qx "$want" <<<"$out2"; then
		fail "dom0<->domU exchange" "no '$want' from both sides (see $L-exchange.log)"
	else
		pass "dom0<->domU exchange" "$((2 * EVENTS)) events ($EVENTS each way), 0 lost${line:+; $line}"
	fi

	# kernel splats, anywhere
	splats "$SERIAL" >"$L-splats.txt"
	if [[ -s $L-splats.txt ]]; then
		fail "kernel splats" "$(wc -l <"$L-splats.txt") line(s) in $SERIAL, first: $(head -n 1 "$L-splats.txt") (all: $L-splats.txt)"
	else
		pass "kernel splats" "none"
	fi

	# shutdown
	if ((QEMU_STATUS == 124 || QEMU_STATUS == 137)); then
		fail "shutdown" "QEMU killed after the ${TIMEOUT}s limit (serial log at: $(landmark "$SERIAL"))"
	elif grep -q '^xen-test: watchdog' "$SERIAL"; then
		fail "shutdown" "$(grep -m1 '^xen-test: watchdog' "$SERIAL")"
	elif ((QEMU_STATUS != 0)); then
		fail "shutdown" "QEMU exited with status $QEMU_STATUS (see $L-qemu.log)"
	elif ! grep -q '^xen-test: dom0 init done' "$d0"; then
		fail "shutdown" "QEMU ended before dom0's init finished (at: $(landmark "$SERIAL"))"
	else
		pass "shutdown" "dom0 powered off after $(fmt_time "$QEMU_TIME")"
	fi
}

# rig_prepare: what every boot of the rig needs first (also for the live
# labs that source this script): the host's packages, build/linux, the
# test kernel, Debian's Xen, evtchn-stress.
rig_prepare() {
	mkdir -p "$LOGS" "$XBUILD"
	: >"$PREPLOG"
	check_host
	require_tree
	check_kernel
	fetch_xen
	build_stress
}

# ----------------------------------------------------------------- main ---
main() {
	rig_prepare
	build_initramfs
	say "kernel: ${BZIMAGE#"$ROOT"/} ($(date -r "$BZIMAGE" '+%F %T'))"
	say "initramfs: $XBUILD/dom0.cpio.gz ($(du -h "$XBUILD/dom0.cpio.gz" | cut -f1)), guest: $XBUILD/domU.cpio.gz"
	run_qemu
	split_logs
	judge
	((!WIDTH)) || width_stage
	say "logs: $L-serial.log (the whole serial console), $L-{dom0,domU}.log,"
	if ((HAS_KUNIT)); then
		say "      $L-{dom0,domU}-ktap.log, $L-{dom0,domU}-kunit.txt,"
	fi
	say "      $L-dom0-stress.log, $L-exchange.log"
	say "total time $(fmt_time "$SECONDS") (QEMU $(fmt_time "$QEMU_TIME"))"
	echo "xen-test: $PASSED passed, $FAILED failed"
	((FAILED == 0)) || exit 1
}

# Sourced (by the live labs, for the rig's functions), it only defines.
# (Not "[[ ... ]] || main": set -e does not apply in a || list.)
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main
fi
