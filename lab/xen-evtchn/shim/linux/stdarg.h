/* SPDX-License-Identifier: GPL-2.0-only */
#include "../evr_shim.h"
