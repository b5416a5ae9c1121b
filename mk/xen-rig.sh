#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk/xen-rig.sh: the live rig, a library (sourcing it only defines): Xen
# from Debian under QEMU (TCG) with a dom0 kernel and a busybox initramfs.
# Used by mk/xen-test.sh (make xen-test), after mk/lib.sh.
#
#   rig_init [DIR]     the configuration for XEN_ARCH (x86_64, arm, arm64):
#                      QEMU, Debian's packages, Xen's and dom0's arguments,
#                      the test kernel's paths; DIR (default
#                      build/xen[-ARCH]) holds Xen, the initramfs images
#                      and evtchn-stress.  PKG=path and PKG_KIND=deb|image:
#                      boot that kernel instead of the test kernel.
#   rig_prepare        the host's packages, build/linux, the kernel, Xen,
#                      evtchn-stress (PREPLOG: their log)
#   build_initramfs    dom0's and the guest's images (lab/xen/*-init)
#   run_qemu KERNEL ARGS SERIAL TIMEOUT
#                      boots Xen and KERNEL as dom0 with the command line
#                      ARGS and the initramfs $XBUILD/dom0.cpio.gz, for at
#                      most TIMEOUT s; the serial console in SERIAL, which
#                      must be NAME-serial.log, QEMU's output in
#                      NAME-qemu.log; sets QEMU_STATUS and QEMU_TIME.  A
#                      caller may set QEMU_MEM (MB) and QEMU_EXTRA (more
#                      arguments) before, and define qemu_tick RAW NAME
#                      (called each second with the raw log and NAME).
#
# The rig's variables, one structure by convention:
# - set by the caller before rig_init: XEN_ARCH (default x86_64), XEN
#   (4.17, the default, or 4.20), PKG and
#   PKG_KIND (a DEB= or IMAGE= kernel), GUEST32 (1: a 32-bit guest,
#   AArch32 on arm64: guest32_prepare; default 0), XEN_TEST_QEMU
#   (QEMU_FROM: host or backports);
# - set by rig_init, read-only after it (its callers read them too): the
#   machine (QEMU, DEB_ARCH, TRIPLET, KIMAGE, FOREIGN, SFX, LOAD_*), the
#   paths (XBUILD, XROOT, XEN_ELF, KDIR, BZIMAGE, KCONFIG_FILE, DOM0_KERNEL,
#   STRESS, LIVE_DIR), Xen (XEN_SERIES, XEN_SUITE, APT_ROOT, XEN_PKGS,
#   LIB_PKGS, XEN_TOOLS,
#   XEN_ARGS, XEN_CONFIG), dom0's base command line (DOM0_BASE_ARGS), what
#   the kernel must have (KCONFIG_*), the guest's xl config (DOMU_CFG);
# - set by rig_prepare and the package helpers: MODDIR, HAS_KUNIT, LIVE_KO;
#   by guest32_prepare: GUEST32_IMAGE, GUEST32_MAP, GUEST32_CONFIG;
# - a caller's settings for run_qemu, set before it: QEMU_MEM, QEMU_EXTRA,
#   qemu_tick; everything else run_qemu needs is its arguments;
# - run_qemu's results: QEMU_STATUS, QEMU_TIME (and QEMU_PID meanwhile).
# Nothing here is meant to be overridden with 'local'.  ROOT, BUILD and
# LOGS come from mk/lib.sh.
# shellcheck disable=SC2034,SC2153

# rig_init [DIR]: the rig's configuration (see above).
rig_init() {
	LAB=$ROOT/lab/xen
	# Files build_initramfs adds to dom0's /xen-test/ ("SOURCE:NAME"; the
	# restore stage's).
	RESTORE_INSTALL=()
	XEN_ARCH=${XEN_ARCH:-x86_64}
	# QEMU: the machine; on Arm, guest-loader devices (QEMU 7.2) load dom0's
	# kernel and initramfs where Xen finds them (/chosen/module@ nodes).
	[[ $(arch_field "$XEN_ARCH" xen) == yes ]] ||
		die "ARCH=$XEN_ARCH: make xen-test runs on $XEN_TEST_ALL_ARCHES"
	DEB_ARCH=$(arch_field "$XEN_ARCH" debian)
	TRIPLET=$(arch_field "$XEN_ARCH" triplet)
	KIMAGE=$(arch_field "$XEN_ARCH" image)
	QEMU=("$(arch_field "$XEN_ARCH" qemu)")
	case $XEN_ARCH in
	x86_64)
		QEMU+=(-accel tcg -cpu "max,-smap")
		;;
	arm)
		QEMU+=(-M "virt,virtualization=on,highmem=off" -cpu cortex-a15)
		LOAD_KERNEL=0x42000000 LOAD_INITRD=0x60000000
		;;
	arm64)
		QEMU+=(-M "virt,virtualization=on,gic-version=3" -cpu cortex-a57)
		LOAD_KERNEL=0x49000000 LOAD_INITRD=0x60000000
		;;
	esac
	# FOREIGN: an Arm machine (its Xen, tools and busybox are Debian's
	# packages of that architecture).
	FOREIGN=0
	[[ $XEN_ARCH == x86_64 ]] || FOREIGN=1
	# XEN (XEN_SERIES): Debian 12's Xen 4.17 (bookworm, the default) or
	# Debian 13's 4.20 (trixie: amd64 and arm64; trixie has no Xen for
	# armhf).  APT_ROOT=1: Xen, its tools and every library they load
	# come unpacked from Debian's packages under a private APT
	# configuration (fetch_xen_foreign: Arm, or a Xen whose libraries are
	# not the host's, as 4.20's need Debian 13's glibc); 0: x86_64 4.17,
	# its tools with the host's libraries (mk/packages).
	XEN_SERIES=${XEN:-4.17}
	# Which XEN goes with which ARCH: xen_test_args (mk/lib.sh), checked
	# before the rig starts.
	case $XEN_SERIES in
	4.17) XEN_SUITE=bookworm ;;
	4.20) XEN_SUITE=trixie ;;
	*) die "XEN=$XEN_SERIES: 4.17 or 4.20" ;;
	esac
	APT_ROOT=$FOREIGN
	[[ $XEN_SERIES == 4.17 ]] || APT_ROOT=1
	# Names of the other architectures' and Xen versions' directories and
	# logs: xen[-ARCH][-XEN].
	SFX=
	[[ $XEN_ARCH == x86_64 ]] || SFX=-$XEN_ARCH
	[[ $XEN_SERIES == 4.17 ]] || SFX+=-$XEN_SERIES
	XBUILD=${1:-$BUILD/xen$SFX}
	KDIR=$(kunit_build_dir "$XEN_ARCH")
	BZIMAGE=$KDIR/$KIMAGE
	KCONFIG_FILE=$KDIR/.config
	# DEB= or IMAGE= (mk/xen-test.sh sets PKG and PKG_KIND before): the
	# kernel booted instead of the test kernel; unpack_package or
	# unpack_image fill in the rest.
	[[ ${PKG_KIND:-} == @(|deb|image) ]] || die "rig_init: PKG_KIND=$PKG_KIND (deb, image or nothing)"
	PKG=${PKG:-}
	PKG_KIND=${PKG_KIND:-}
	PKG_DIR=$XBUILD/pkg
	MODDIR=
	HAS_KUNIT=1
	XEN_PKGS=("xen-hypervisor-$XEN_SERIES-$DEB_ARCH" "xen-utils-$XEN_SERIES")
	# APT_ROOT=1: the libraries the tools need (their NEEDED entries,
	# resolved in the unpacked packages; a missing one stops the run) and,
	# on Arm, busybox (x86_64 takes the host's, static).  Debian 13 renamed
	# libext2fs2 (the 64-bit time_t transition).
	LIB_PKGS=(libxencall1 libxendevicemodel1 libxenevtchn1 libxenforeignmemory1
		libxengnttab1 libxenhypfs1 "libxenmisc$XEN_SERIES" libxenstore4
		libxentoolcore1 libxentoollog1 libyajl2 libc6 libgcc-s1 libfdt1
		"libext2fs2$([[ $XEN_SUITE == bookworm ]] || echo t64)"
		libuuid1 libbz2-1.0 liblzma5 libzstd1 zlib1g libblkid1 libcom-err2)
	((!FOREIGN)) || LIB_PKGS+=(busybox-static)
	XEN_BIN=/usr/lib/xen-$XEN_SERIES/bin
	XEN_TOOLS=(xl xenstored xenconsoled xen-init-dom0)
	# xl save and restore run it (x86 only: Xen on Arm cannot save a guest).
	[[ $XEN_ARCH != x86_64 ]] || XEN_TOOLS+=(libxl-save-helper)
	# What the kernel needs for every stage (lab/xen/xen-test.config): built
	# in, and built in or (in a package) as modules.
	KCONFIG_BUILTIN=(XEN_DOM0 HVC_XEN XEN_BACKEND UNIX UNIX98_PTYS
		BLK_DEV_INITRD RD_GZIP DEVTMPFS TMPFS)
	[[ $XEN_ARCH != x86_64 ]] || KCONFIG_BUILTIN+=(XEN_PV)
	[[ $XEN_ARCH == x86_64 ]] || KCONFIG_BUILTIN+=(SMP)
	# The options of lab/xen/dom0.lsmod's modules (PKG_MODULES below).
	KCONFIG_MODULES=(XEN_DEV_EVTCHN XENFS XEN_PRIVCMD XEN_GNTDEV)
	# The test kernel's: the suite, and modules for the live suite's.
	KCONFIG_KUNIT=(KUNIT XEN_EVTCHN_2L_KUNIT_TEST MODULES)
	# The live KUnit suite, lab/live/, an out-of-tree module built against
	# the test kernel's build directory in LIVE_DIR (build_live_module).
	LIVE_DIR=$XBUILD/live
	LIVE_KO=
	case $XEN_ARCH in
	x86_64) XEN_ARGS="console=com1 com1=115200 dom0_mem=1024M,max:1024M dom0_max_vcpus=2 spec-ctrl=eager-fpu" ;;
	*) XEN_ARGS="console=dtuart dom0_mem=768M dom0_max_vcpus=2" ;;
	esac
	# No comma in dom0's arguments: QEMU splits multiboot modules on commas.
	# mk/xen-test.sh adds its own to DOM0_BASE_ARGS.
	DOM0_BASE_ARGS="console=hvc0 earlyprintk=xen xen.fifo_events=0 panic=-1"
	XEN_CONFIG=xen-test.config
	[[ $XEN_ARCH == x86_64 ]] || XEN_CONFIG=xen-test-arm.config
	# Debian's Xen hypervisor and tools, the version of the installed
	# libraries, downloaded (apt-get download) and unpacked in build/xen/root;
	# the hypervisor, gunzipped, is build/xen/xen.elf.
	XROOT=$XBUILD/root
	XEN_ELF=$XBUILD/xen.elf
	# lab/xen-evtchn/evtchn-stress, static (dom0 and the guest), by
	# its Makefile (make rebuilds it when its source changes).
	STRESS=$XBUILD/stress/evtchn-stress
	STRESS_DIR=$ROOT/lab/xen-evtchn
	# The modules a package's kernel loads (copy_modules): lab/xen/dom0.lsmod,
	# which make and make deb take as LSMOD= to build only those.
	mapfile -t PKG_MODULES < <(lsmod_names "$ROOT/lab/xen/dom0.lsmod" | tr _ -)
	((${#PKG_MODULES[@]} == ${#KCONFIG_MODULES[@]})) ||
		die "lab/xen/dom0.lsmod names ${#PKG_MODULES[@]} modules, KCONFIG_MODULES in mk/xen-rig.sh ${#KCONFIG_MODULES[@]} options: one list changed without the other"
	# dom0's kernel: the copy the guest runs too (the build directory's may be
	# rebuilt meanwhile).
	# On Arm the guest is lab/xen/domU-arm.cfg (an Arm guest, not PV).
	DOMU_CFG=domU.cfg
	DOM0_KERNEL=$XBUILD/dom0-root/xen-test/bzImage
	if ((FOREIGN)); then
		DOMU_CFG=domU-arm.cfg
		DOM0_KERNEL=$XBUILD/dom0-root/xen-test/kernel
	fi
	# make xen-test DOMU=arm32 sets GUEST32=1: a 32-bit guest
	# (guest32_prepare).
	GUEST32=${GUEST32:-0}
	# XEN_TEST_QEMU=host|backports: the host's QEMU (Debian 12's 7.2) or
	# bookworm-backports' (fetch_qemu_backports).  A 32-bit guest of Xen
	# arm64 takes the backport by default: QEMU 7.2 aborts under it
	# (docs/live-xen.md).
	QEMU_FROM=${XEN_TEST_QEMU:-$([[ $XEN_ARCH == arm64 && $GUEST32 == 1 ]] && echo backports || echo host)}
	# QEMU's TCG for make xen-test (XEN_TEST_TCG=multi|single): a thread
	# per vCPU, or one for all.
	TCG=${XEN_TEST_TCG:-multi}
	GUEST32_IMAGE='' GUEST32_MAP='' GUEST32_CONFIG=''
	QEMU_PID=
	# A caller's settings for run_qemu (see above).
	QEMU_MEM=2048
	QEMU_EXTRA=()
}

# ---------------------------------------------------------- requirements ---
check_host() {
	local cmd
	# The Debian packages of mk/packages that make xen-test needs (the
	# Xen tools' libraries among them): mk/deps.sh installs what is
	# missing, or names it.
	"$ROOT/mk/deps.sh" xen-test
	for cmd in "${QEMU[0]}" cpio gzip python3 apt-get dpkg-deb timeout; do
		command -v "$cmd" >/dev/null || die "$cmd not found"
	done
	if ((APT_ROOT)); then
		command -v readelf >/dev/null || die "readelf not found (Debian package binutils)"
	fi
	if ((FOREIGN)); then
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
# missing or older than build/linux, its configuration, or a file edited
# in build/linux's drivers/xen or include/xen (committed or not).
kernel_needs_build() {
	image_stale "$BZIMAGE" "$LAB/$XEN_CONFIG" "$KDIR"
}

# say_built_with BDIR: with XEN_TEST_NO_BUILD=1, say which options the
# kernel taken as it is was built with beyond its configuration.
say_built_with() {
	local with
	with=$(kunit_built_with "$1") || with='(not recorded)'
	[[ -z $with ]] || say "XEN_TEST_NO_BUILD=1: ${1#"$ROOT"/}'s kernel, built with KUNIT_KCONFIG_ADD=$with"
}

# image_stale IMAGE CONFIG BDIR: whether the KUnit kernel IMAGE, built in
# BDIR and configured with the fragment CONFIG, is missing, older than
# what it is built from, or built with another KUNIT_KCONFIG_ADD (by
# make kunit KUNIT_KCONFIG_ADD=..., e.g. an LPAE kernel) than now.
image_stale() {
	local f with
	[[ -f $1 ]] || return 0
	with=$(kunit_built_with "$3") || return 0
	[[ $with == "$(kunit_add_words)" ]] || return 0
	for f in "$SERIES_STAMP" "$2" "$ROOT/mk/kunit.sh" \
		"$LINUX/drivers/xen/events/tests/.kunitconfig"; do
		[[ ! $f -nt $1 ]] || return 0
	done
	[[ -z $(find "$LINUX/drivers/xen" "$LINUX/include/xen" -newer "$1" \
		-type f -print -quit 2>/dev/null) ]] || return 0
	return 1
}

# unpack_package: DEB=...deb unpacked in $PKG_DIR; sets BZIMAGE,
# KCONFIG_FILE, MODDIR (its /lib/modules/RELEASE, if any), then
# check_outside.
unpack_package() {
	local name krel
	[[ -f $PKG ]] || die "DEB=$PKG: no such file"
	name=$(dpkg-deb -f "$PKG" Package 2>/dev/null) ||
		die "DEB=$PKG: not a Debian package (dpkg-deb cannot read it)"
	[[ $name == linux-image-* ]] ||
		die "DEB=$PKG: package $name is not a kernel image (linux-image-*)"
	rm -rf "$PKG_DIR"
	mkdir -p "$PKG_DIR"
	dpkg-deb -x "$PKG" "$PKG_DIR" || die "DEB=$PKG: dpkg-deb -x failed"
	BZIMAGE=$(find "$PKG_DIR/boot" -maxdepth 1 -name 'vmlinuz-*' -print -quit 2>/dev/null) || true
	[[ -n $BZIMAGE ]] || die "DEB=$PKG: no boot/vmlinuz-* in $name"
	krel=${BZIMAGE##*/vmlinuz-}
	KCONFIG_FILE=$PKG_DIR/boot/config-$krel
	[[ -f $KCONFIG_FILE ]] || die "DEB=$PKG: no boot/config-$krel in $name"
	if [[ -d $PKG_DIR/lib/modules/$krel ]]; then
		MODDIR=$PKG_DIR/lib/modules/$krel
	fi
	check_outside
	say "kernel: $name $(dpkg-deb -f "$PKG" Version) (release $krel${MODDIR:+, modules}; live KUnit suite: not run, its module is built for the test kernel only)"
}

# unpack_image: IMAGE=path, a kernel image as make leaves it in build/out:
# its configuration beside it ("config"; IMAGE_CONFIG=path names another)
# and its modules, if any, the modules-RELEASE.tar.xz beside it, unpacked
# in $PKG_DIR; sets BZIMAGE, KCONFIG_FILE, MODDIR, then check_outside.
unpack_image() {
	local dir tars=()
	[[ -f $PKG ]] || die "IMAGE=$PKG: no such file"
	dir=$(dirname "$PKG")
	KCONFIG_FILE=${IMAGE_CONFIG:-$dir/config}
	[[ -f $KCONFIG_FILE ]] ||
		die "IMAGE=$PKG: no configuration $KCONFIG_FILE (IMAGE_CONFIG=path names it; make leaves build/out/config)"
	BZIMAGE=$PKG
	rm -rf "$PKG_DIR"
	mkdir -p "$PKG_DIR"
	shopt -s nullglob
	tars=("$dir"/modules-*.tar.xz)
	shopt -u nullglob
	((${#tars[@]} <= 1)) || die "IMAGE=$PKG: ${#tars[@]} modules-*.tar.xz beside it: which is its own?"
	if ((${#tars[@]})); then
		tar -xJf "${tars[0]}" -C "$PKG_DIR" || die "IMAGE=$PKG: cannot unpack ${tars[0]}"
		MODDIR=$(find "$PKG_DIR/lib/modules" -mindepth 1 -maxdepth 1 -type d -print -quit 2>/dev/null) || true
		[[ -n $MODDIR ]] || die "IMAGE=$PKG: ${tars[0]} has no lib/modules/RELEASE"
	fi
	check_outside
	say "kernel: $PKG (configuration $KCONFIG_FILE${MODDIR:+, modules $(basename "${tars[0]}")}; live KUnit suite: not run, its module is built for the test kernel only)"
}

# check_outside: a DEB= or IMAGE= kernel's configuration against what the
# stages need (KCONFIG_BUILTIN =y; KCONFIG_MODULES =y, or =m with
# modules).  The live KUnit suite is a module of the test kernel's build
# directory: HAS_KUNIT=0, its stages are reported as not run.
check_outside() {
	local opt what="${PKG_KIND^^}=$PKG" cfg=${KCONFIG_FILE##*/}
	for opt in "${KCONFIG_BUILTIN[@]}"; do
		grep -qx "CONFIG_$opt=y" "$KCONFIG_FILE" ||
			die "$what: CONFIG_$opt=y missing in its $cfg (needed to boot as dom0 here)"
	done
	for opt in "${KCONFIG_MODULES[@]}"; do
		grep -qE "^CONFIG_$opt=[ym]\$" "$KCONFIG_FILE" ||
			die "$what: CONFIG_$opt is neither =y nor =m in its $cfg"
		if grep -qx "CONFIG_$opt=m" "$KCONFIG_FILE" && [[ -z $MODDIR ]]; then
			die "$what: CONFIG_$opt=m but it comes with no modules"
		fi
	done
	HAS_KUNIT=0
}

check_kernel() {
	local opt
	case $PKG_KIND in
	deb) unpack_package; return ;;
	image) unpack_image; return ;;
	esac
	if [[ ${XEN_TEST_NO_BUILD:-} == 1 ]]; then
		[[ -f $BZIMAGE ]] || die "$BZIMAGE missing (XEN_TEST_NO_BUILD=1)"
		say_built_with "$KDIR"
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
fetch_xen() {
	local ver p deb tmp
	if ((APT_ROOT)); then
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

# fetch_xen_foreign: the same for APT_ROOT=1 (Arm, or XEN=4.20), from
# Debian's packages of that architecture and suite (Xen, its tools, the
# libraries of LIB_PKGS, on Arm busybox-static) downloaded under a private APT
# configuration in build/xen[-ARCH][-XEN]/apt (its own sources list,
# lists, status and cache; the host's apt sources and dpkg architectures
# stay as they are).  Xen's version is the one the archive has; delete
# that directory to fetch again.
fetch_xen_foreign() {
	local apt=$XBUILD/apt p hv s=$XEN_SUITE
	hv=boot/xen-$XEN_SERIES-$DEB_ARCH
	if [[ -f $XROOT/.version && -f $XEN_ELF ]]; then
		return
	fi
	say "fetching Debian's Xen $XEN_SERIES ($s), its tools, their libraries$( ((!FOREIGN)) || echo ' and busybox') for $DEB_ARCH (private APT configuration in ${apt#"$ROOT"/}; log: $PREPLOG)"
	# .version last: a root without it is fetched again.
	apt_unpack "$apt" "$DEB_ARCH" "$XROOT" "$PREPLOG" \
		"${XEN_PKGS[@]/%/:$DEB_ARCH}" "${LIB_PKGS[@]/%/:$DEB_ARCH}" -- \
		"deb [arch=$DEB_ARCH] http://deb.debian.org/debian $s main" \
		"?deb [arch=$DEB_ARCH] http://deb.debian.org/debian $s-updates main" \
		"?deb [arch=$DEB_ARCH] http://deb.debian.org/debian-security $s-security main"
	for p in "${XEN_TOOLS[@]}"; do
		[[ -x $XROOT$XEN_BIN/$p ]] || die "xen-utils-$XEN_SERIES ($DEB_ARCH) has no $XEN_BIN/$p"
	done
	((!FOREIGN)) || xroot_file /bin/busybox >/dev/null ||
		die "busybox-static ($DEB_ARCH) has no bin/busybox"
	# Xen on x86 is packaged gzipped (QEMU's multiboot loader takes the
	# ELF), on Arm as it boots.
	if [[ -f $XROOT/$hv.gz ]]; then
		gzip -dc "$XROOT/$hv.gz" >"$XEN_ELF.tmp"
	elif [[ -f $XROOT/$hv ]]; then
		cp "$XROOT/$hv" "$XEN_ELF.tmp"
	else
		die "xen-hypervisor-$XEN_SERIES-$DEB_ARCH has neither $hv nor $hv.gz"
	fi
	mv "$XEN_ELF.tmp" "$XEN_ELF"
	dpkg-deb -f "$apt/debs/xen-hypervisor-$XEN_SERIES-${DEB_ARCH}_"*.deb Version >"$XROOT/.version"
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

build_stress() {
	[[ -f $STRESS_DIR/evtchn-stress.c ]] ||
		die "$STRESS_DIR/evtchn-stress.c missing"
	mkdir -p "$(dirname "$STRESS")"
	make -C "$STRESS_DIR" -s OUTPUT="$(dirname "$STRESS")/" CFLAGS=-O2 \
		CC="$(cross_prefix "$XEN_ARCH")gcc" LDFLAGS=-static evtchn-stress >>"$PREPLOG" 2>&1 ||
		die "cannot build evtchn-stress (see $PREPLOG)"
	[[ -x $STRESS ]] || die "$STRESS missing after make evtchn-stress"
	# evtchn-restore (the restore stage's guests: x86 PV, where Xen can
	# save a guest), static on Debian's libxen-dev.
	[[ $XEN_ARCH == x86_64 ]] || return 0
	make -C "$STRESS_DIR" -s OUTPUT="$(dirname "$STRESS")/" CFLAGS=-O2 \
		LDFLAGS=-static evtchn-restore >>"$PREPLOG" 2>&1 ||
		die "cannot build evtchn-restore (Debian's libxen-dev: make deps; see $PREPLOG)"
}

# build_live_module: the live KUnit suite (lab/live/) as a module of the
# test kernel, built in a copy of lab/live in LIVE_DIR (M=) with W=1, as
# the kernel test robot builds (a warning stops the run); sets LIVE_KO.
# The inits of dom0 and the guest load it (stage live-kunit).
build_live_module() {
	local arch=$XEN_ARCH
	[[ -z $PKG_KIND ]] || return 0
	[[ $arch != x86_64 ]] || arch=x86
	live_module "$KDIR" "$arch" "$(cross_prefix "$XEN_ARCH")" "$LIVE_DIR" \
		"${L:-$LOGS/xen-rig-$XEN_ARCH}-live-module.log"
	LIVE_KO=$LIVE_DIR/events_2l_live_kunit.ko
}

# live_module KDIR ARCH CROSS_COMPILE DIR LOG: lab/live's module built in
# DIR against the kernel build directory KDIR, with W=1 (a warning stops
# the run): DIR/events_2l_live_kunit.ko.
live_module() {
	local kdir=$1 arch=$2 cross=$3 dir=$4 log=$5
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$ROOT"/lab/live/Kbuild "$ROOT"/lab/live/*.c "$dir/"
	say "building the live KUnit module (lab/live/, M=${dir#"$ROOT"/}; log: ${log#"$ROOT"/})"
	make -C "$kdir" M="$dir" ARCH="$arch" CROSS_COMPILE="$cross" W=1 modules >"$log" 2>&1 ||
		die "cannot build lab/live's module against ${kdir#"$ROOT"/} (see $log)"
	! grep -E '(warning|error):' "$log" ||
		die "lab/live's module builds with warnings (see $log)"
	[[ -f $dir/events_2l_live_kunit.ko ]] ||
		die "$dir/events_2l_live_kunit.ko missing after the module's build (see $log)"
}

# ------------------------------------------------- the 32-bit guests ---
# GUEST32=1: the guest is a 32-bit kernel of dom0's architecture family:
# make xen-test DOMU=arm32 (arm64), the arm KUnit kernel (build/
# kunit-arm, lab/xen/xen-test-arm.config) as an AArch32 guest of Xen
# arm64.  It is built by mk/kunit.sh when missing or older than its
# sources, and gets an initramfs of its own (build/xen[-ARCH]/
# domU32.cpio.gz): Debian's busybox-static for armhf, downloaded under a
# private APT configuration in build/xen[-ARCH]/armhf (the host's apt
# sources and dpkg architectures stay as they are), evtchn-stress built
# for it with arm-linux-gnueabihf-gcc, and the live KUnit module built
# against its kernel.  Sets GUEST32_IMAGE and GUEST32_MAP (its
# System.map, for dom0's diagnostics) and GUEST32_CONFIG (its .config,
# for the width bug stage's kernels); build_initramfs puts them, the
# initramfs and lab/xen/domU-arm32.cfg in dom0's /xen-test.
guest32_prepare() {
	local karch debarch img frag kdir bb apt opt opts=() make_args=()
	case $XEN_ARCH in
	arm64)
		karch=arm frag=xen-test-arm.config
		opts=(XEN SMP)
		make_args=(CFLAGS=-O2 CC="$(cross_prefix arm)gcc" LDFLAGS=-static)
		;;
	*) die "guest32_prepare: no 32-bit guest on ARCH=$XEN_ARCH" ;;
	esac
	debarch=$(arch_field "$karch" debian) img=$(arch_field "$karch" image)
	bb=$XBUILD/$debarch/root/bin/busybox apt=$XBUILD/$debarch/apt
	# The cheap steps first: a missing package stops the run before the
	# kernel's build.
	mkdir -p "$XBUILD/stress32"
	make -C "$STRESS_DIR" -s OUTPUT="$XBUILD/stress32/" "${make_args[@]}" \
		evtchn-stress >>"$PREPLOG" 2>&1 ||
		die "cannot build evtchn-stress for $karch with ${make_args[*]:0:2} (Debian packages: mk/packages; see $PREPLOG)"
	if [[ ! -x $bb ]]; then
		say "fetching Debian's busybox-static for $debarch (private APT configuration in ${apt#"$ROOT"/})"
		apt_unpack "$apt" "$debarch" "$XBUILD/$debarch/root" "$PREPLOG" "busybox-static:$debarch" -- \
			"deb [arch=$debarch] http://deb.debian.org/debian bookworm main" \
			"?deb [arch=$debarch] http://deb.debian.org/debian-security bookworm-security main"
		[[ -x $bb ]] || die "busybox-static ($debarch) has no bin/busybox"
	fi
	# Its own build directory, whatever KUNIT_BUILD_DIR says of dom0's.
	kdir=$BUILD/kunit-$karch
	GUEST32_IMAGE=$kdir/$img
	GUEST32_MAP=$kdir/System.map
	GUEST32_CONFIG=$kdir/.config
	if [[ ${XEN_TEST_NO_BUILD:-} == 1 ]]; then
		[[ -f $GUEST32_IMAGE ]] || die "$GUEST32_IMAGE missing (XEN_TEST_NO_BUILD=1)"
		say_built_with "$kdir"
	elif image_stale "$GUEST32_IMAGE" "$LAB/$frag" "$kdir"; then
		say "building the 32-bit guest's kernel: mk/kunit.sh $karch"
		if ! KUNIT_BUILD_DIR='' "$ROOT/mk/kunit.sh" "$karch"; then
			! image_stale "$GUEST32_IMAGE" "$LAB/$frag" "$kdir" ||
				die "mk/kunit.sh $karch failed"
			warn "mk/kunit.sh $karch failed, but built $GUEST32_IMAGE: going on"
		fi
	fi
	for opt in "${opts[@]}" HVC_XEN XEN_DEV_EVTCHN BLK_DEV_INITRD RD_GZIP DEVTMPFS \
		"${KCONFIG_KUNIT[@]}"; do
		grep -qx "CONFIG_$opt=y" "$kdir/.config" ||
			die "CONFIG_$opt=y missing in $kdir/.config (see lab/xen/$frag)"
	done
	live_module "$kdir" "$karch" "$(cross_prefix "$karch")" "$XBUILD/live32" \
		"${L:-$LOGS/xen-rig-$XEN_ARCH}-live32-module.log"
	# Not a package's modules: this guest is the 32-bit test kernel.
	MODDIR='' busybox_root "$XBUILD/domU32-root" "$LAB/domU-init" "$bb" "$XBUILD/stress32/evtchn-stress" \
		"$XBUILD/live32/events_2l_live_kunit.ko"
	mkcpio "$XBUILD/domU32-root" "$XBUILD/domU32.cpio.gz"
}

# ------------------------------------------------------------ initramfs ---
# stage_libs DIR FILE...: the shared libraries FILE... need (ldd on the
# host, against the installed packages) into DIR, at the same paths.  With
# APT_ROOT=1 (Arm, XEN=4.20): their NEEDED entries and interpreter
# (readelf), found in the unpacked packages, at their paths there.
stage_libs() {
	local dir=$1 f line lib
	if ((APT_ROOT)); then
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

# xroot_file PATH: where the unpacked packages hold /PATH: PATH itself, or
# /usr/PATH (Debian 13's packages ship /lib* under /usr; the links from
# /lib* come from base-files, not unpacked here).  Fails if neither.
xroot_file() {
	local p
	for p in "$1" "/usr$1"; do
		[[ -e $XROOT$p ]] || continue
		echo "$p"
		return 0
	done
	return 1
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
			d=$(xroot_file "$interp") || die "$(basename "$f") needs $interp, not in the unpacked packages"
			mkdir -p "$dir$(dirname "$interp")"
			cp -L "$XROOT$d" "$dir$interp"
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
				die "$(basename "$f") needs $so, not in the unpacked packages (its Debian package missing from LIB_PKGS in mk/xen-rig.sh?)"
			mkdir -p "$dir$(dirname "$lib")"
			cp -L "$XROOT$lib" "$dir$lib"
			todo+=("$XROOT$lib")
		done < <(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	done
}

# busybox_root DIR INIT [BUSYBOX STRESS KO]: a fresh tree in DIR with
# busybox, INIT as /init and the usual directories (the init installs the
# applet links), evtchn-stress and the live KUnit module; by default the
# rig's (the 32-bit guest's are its own).
busybox_root() {
	local dir=$1 bb=${3:-} stress=${4:-$STRESS} ko=${5:-$LIVE_KO}
	if [[ -z $bb ]]; then
		bb=/bin/busybox
		((!FOREIGN)) || bb=$XROOT$(xroot_file /bin/busybox)
	fi
	rm -rf "$dir"
	mkdir -p "$dir"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,etc}
	cp "$bb" "$dir/bin/busybox"
	ln -s busybox "$dir/bin/sh"
	install -m 755 "$2" "$dir/init"
	install -m 755 "$stress" "$dir/usr/bin/evtchn-stress"
	# series (c)'s reproducer, built beside evtchn-stress on x86_64
	# (build_stress), for the restore stage's guests.
	[[ ! -x $(dirname "$stress")/evtchn-restore ]] ||
		install -m 755 "$(dirname "$stress")/evtchn-restore" "$dir/usr/bin/evtchn-restore"
	if [[ -n $ko ]]; then
		mkdir -p "$dir/usr/lib/xen-test"
		install -m 644 "$ko" "$dir/usr/lib/xen-test/"
	fi
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
		[[ -n $f ]] || die "${PKG_KIND^^}=$PKG: module $m not found in ${MODDIR#"$ROOT"/}"
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
	if ((APT_ROOT)); then
		lib=$(xroot_file "/lib/$TRIPLET/libgcc_s.so.1") ||
			die "/lib/$TRIPLET/libgcc_s.so.1 not in the unpacked packages (libgcc-s1, $DEB_ARCH)"
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
# does not end in time), on x86: xenctx and the kernel's System.map (the
# test kernel's, or the one beside IMAGE= or in DEB=) in /xen-test, for
# the guest's stacks.  (Not yet tried on Arm.)
stage_diagnostics() {
	local r=$1 t=$XROOT$XEN_BIN/xenctx
	((!FOREIGN)) || return 0
	if [[ -x $t ]]; then
		cp "$t" "$r$XEN_BIN/xenctx"
		stage_libs "$r" "$t"
	fi
	local map=$KDIR/System.map
	case $PKG_KIND in
	image) map=$(dirname "$PKG")/System.map ;;
	deb) map=$PKG_DIR/boot/System.map-${BZIMAGE##*/vmlinuz-} ;;
	esac
	[[ ! -f $map ]] || install -m 644 "$map" "$r/xen-test/System.map"
}

build_initramfs() {
	local d=$XBUILD/domU-root r=$XBUILD/dom0-root
	# The guest: busybox, its init, evtchn-stress.
	busybox_root "$d" "$LAB/domU-init"
	mkcpio "$d" "$XBUILD/domU.cpio.gz"

	# dom0: the same, plus the Xen tools and the guest (kernel, initramfs,
	# xl config) in /xen-test.
	busybox_root "$r" "$LAB/dom0-init"
	# dom0-init's modules stage loads what it names.
	[[ -z $MODDIR ]] || printf '%s\n' "${PKG_MODULES[@]}" >"$r/etc/dom0.modules"
	stage_xen_tools "$r"
	mkdir -p "$r/xen-test"
	install -m 644 "$LAB/$DOMU_CFG" "$r/xen-test/domU.cfg"
	# The 32-bit guest (DOMU=arm32): its kernel and initramfs.
	if ((GUEST32)); then
		install -m 644 "$LAB/domU-arm32.cfg" "$r/xen-test/domU-arm32.cfg"
		install -m 644 "$GUEST32_IMAGE" "$r/xen-test/kernel32"
		install -m 644 "$XBUILD/domU32.cpio.gz" "$r/xen-test/domU32.cpio.gz"
		[[ ! -f $GUEST32_MAP ]] || install -m 644 "$GUEST32_MAP" "$r/xen-test/System.map32"
	fi
	install -m 644 "$BZIMAGE" "$DOM0_KERNEL"
	install -m 644 "$XBUILD/domU.cpio.gz" "$r/xen-test/domU.cpio.gz"
	# The restore stage's guest kernels and runs (mk/xen-test.sh):
	# "SOURCE:NAME", installed as /xen-test/NAME.
	local f
	for f in "${RESTORE_INSTALL[@]}"; do
		install -m 644 "${f%%:*}" "$r/xen-test/${f##*:}"
	done
	stage_diagnostics "$r"
	mkcpio "$r" "$XBUILD/dom0.cpio.gz"
}

# ----------------------------------------------------------------- QEMU ---
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

# qemu_tick RAW NAME: called every second while QEMU runs, with the raw
# serial log and the logs' prefix; a caller may define its own
# (mk/xen-test.sh does).
qemu_tick() { :; }

# run_qemu KERNEL ARGS SERIAL TIMEOUT (see the top of this file).
run_qemu() {
	local kernel=$1 args=$2 serial=$3 timeout=$4
	local name=${3%-serial.log} raw=$3.raw t0=$SECONDS last=$SECONDS status=0 boot=()
	[[ $name != "$serial" ]] || die "run_qemu: $serial: not NAME-serial.log"
	[[ $timeout =~ ^[0-9]+$ ]] || die "run_qemu: timeout '$timeout': not a number of seconds"
	rm -f "$raw"
	local hv
	hv=$(<"$XROOT/.version")
	say "booting Xen $hv ($DEB_ARCH) + dom0 under QEMU (TCG, 2 vCPUs; hard limit ${timeout}s)"
	if ((FOREIGN)); then
		boot=(-device "guest-loader,addr=$LOAD_KERNEL,kernel=$kernel,bootargs=$args"
			-device "guest-loader,addr=$LOAD_INITRD,initrd=$XBUILD/dom0.cpio.gz")
	else
		boot=(-initrd "$kernel $args,$XBUILD/dom0.cpio.gz")
	fi
	trap kill_qemu EXIT
	trap 'kill_qemu; die "interrupted"' INT TERM
	timeout -k 10 "$timeout" "${QEMU[@]}" -smp 2 -m "$QEMU_MEM" \
		-nodefaults -display none -monitor none -no-reboot \
		-serial "file:$raw" "${QEMU_EXTRA[@]}" \
		-kernel "$XEN_ELF" -append "$XEN_ARGS" "${boot[@]}" \
		>"$name-qemu.log" 2>&1 &
	QEMU_PID=$!
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		sleep 1
		qemu_tick "$raw" "$name"
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
	tr -d '\r' <"$raw" >"$serial"
	rm -f "$raw"
}

# rig_prepare: what every boot of the rig needs first: the host's
# packages, build/linux, the kernel (check_kernel), Debian's Xen,
# evtchn-stress.
rig_prepare() {
	mkdir -p "$LOGS" "$XBUILD"
	: >"$PREPLOG"
	check_host
	require_tree
	check_kernel
	build_live_module
	fetch_xen
	[[ $QEMU_FROM != backports ]] || fetch_qemu_backports
	build_stress
}

# fetch_qemu_backports: QEMU_FROM=backports: Debian's QEMU from
# bookworm-backports (built for Debian 12, its libraries the host's)
# downloaded under a private APT configuration and unpacked in
# build/qemu-backports (nothing is installed); QEMU then runs from there,
# its firmware and data from there too (-L).  Its version is the one the
# archive has; delete build/qemu-backports to fetch again.
fetch_qemu_backports() {
	local dir=$BUILD/qemu-backports apt bin missing
	apt=$dir/apt
	bin=$dir/root/usr/bin/${QEMU[0]}
	if [[ ! -x $bin || ! -f $dir/root/.version ]]; then
		say "fetching Debian's QEMU from bookworm-backports (private APT configuration in ${apt#"$ROOT"/}; log: $PREPLOG)"
		apt_unpack "$apt" amd64 "$dir/root" "$PREPLOG" qemu-system-arm qemu-system-x86 qemu-system-data -- \
			"deb [arch=amd64] http://deb.debian.org/debian bookworm-backports main"
		[[ -x $bin ]] || die "QEMU from bookworm-backports has no usr/bin/${QEMU[0]}"
		dpkg-deb -f "$apt/debs"/qemu-system-arm_*.deb Version >"$dir/root/.version"
	fi
	# Built for Debian 12: the host's libraries, which QEMU 7.2's packages
	# (mk/packages) bring; one missing stops the run here.
	missing=$(ldd "$bin" | awk '/not found/ { print $1 }' | paste -sd' ')
	[[ -z $missing ]] || die "${bin#"$ROOT"/} needs $missing, not on the host"
	QEMU[0]=$bin
	QEMU+=(-L "$dir/root/usr/share/qemu")
	say "QEMU: ${QEMU[0]#"$ROOT"/} $(<"$dir/root/.version") (bookworm-backports)"
}
