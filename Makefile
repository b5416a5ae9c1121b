# Top-level Makefile of the Xen 2-level event-channel scanner series.
# The work is done by the scripts in mk/; see README.md.

# The scripts parallelise their own kernel builds; keep targets sequential.
.NOTPARALLEL:

.PHONY: deps tree clean

deps:
	@mk/deps.sh

# build/linux: base + patches/series, one commit per entry (mk/tree.sh).
tree: deps
	@mk/tree.sh

clean:
	rm -rf build
