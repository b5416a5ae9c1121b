# Top-level Makefile of the Xen 2-level event-channel scanner series.
# The work is done by the scripts in mk/; see README.md.

# The scripts parallelise their own kernel builds; keep targets sequential.
.NOTPARALLEL:

ARCH ?= x86_64

.PHONY: all deps tree kunit clean

# Default: the patched, dom0-capable x86_64 kernel in build/out/
# (mk/kernel.sh; KCONFIG=/path/to/.config replaces defconfig + xen.config).
all: tree
	@mk/kernel.sh

deps:
	@mk/deps.sh

# build/linux: base + patches/series, one commit per entry (mk/tree.sh).
tree: deps
	@mk/tree.sh

# The KUnit suite under QEMU (mk/kunit.sh): ARCH=x86_64|arm64|arm,
# KUNIT_KCONFIG_ADD="CONFIG_...=y ...", KUNIT_BUILD_DIR=<name in build/>.
kunit: tree
	@mk/kunit.sh $(ARCH)

clean:
	rm -rf build
