# Top-level Makefile of the Xen 2-level event-channel scanner series.
# The work is done by the scripts in mk/; see README.md.

# The scripts parallelise their own kernel builds; keep targets sequential.
.NOTPARALLEL:

.PHONY: deps clean

deps:
	@mk/deps.sh

clean:
	rm -rf build
