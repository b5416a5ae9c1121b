// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer target: the differential of diff.c on arbitrary bytes. */
#include <stdlib.h>

#include "diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct evr_diff_stats st = { 0 };

	if (evr_diff_run(data, size, &st))
		abort();
	return 0;
}
