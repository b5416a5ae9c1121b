# Top-level Makefile of the Xen 2-level event-channel scanner series.
# The work is done by the scripts in mk/; see README.md.

# The scripts parallelise their own kernel builds; keep targets sequential.
.NOTPARALLEL:

.PHONY: all deps tree clean

# Default: the patched, dom0-capable x86_64 kernel in build/out/
# (mk/kernel.sh; KCONFIG=/path/to/.config replaces defconfig + xen.config).
all: tree
	@mk/kernel.sh

deps:
	@mk/deps.sh

# build/linux: base + patches/series, one commit per entry (mk/tree.sh).
tree: deps
	@mk/tree.sh

clean:
	rm -rf build
