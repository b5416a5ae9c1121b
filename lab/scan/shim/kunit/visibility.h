/* SPDX-License-Identifier: GPL-2.0-only */
/* Stand-in for <kunit/visibility.h>: no KUnit in user space. */
#ifndef __EVR_KUNIT_VISIBILITY_H__
#define __EVR_KUNIT_VISIBILITY_H__

#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)

#endif /* __EVR_KUNIT_VISIBILITY_H__ */
