/* SPDX-License-Identifier: GPL-2.0-only */
/* glibc's <errno.h> comes here too: pass it on to the real one. */
#include_next <linux/errno.h>
#include "../evr_shim.h"
