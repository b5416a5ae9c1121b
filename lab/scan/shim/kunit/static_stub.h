/* SPDX-License-Identifier: GPL-2.0-only */
/* Stand-in for <kunit/static_stub.h>: no KUnit in user space. */
#ifndef __EVR_KUNIT_STATIC_STUB_H__
#define __EVR_KUNIT_STATIC_STUB_H__

#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) do { } while (0)

#endif /* __EVR_KUNIT_STATIC_STUB_H__ */
